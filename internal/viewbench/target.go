package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// target is one server under measurement, with the proxy before its
// DynamoDB and clients signed in as the data set's users. The views are the
// owner's.
type target struct {
	bin           *binary
	srv           *server
	proxy         *proxy
	table         string // set once the server has created it
	owner, member gqlClient
}

// The users of the data set.
const (
	ownerEmail  = "bench@example.com"
	memberEmail = "m1@example.com"
)

// dropWait bounds the deletion of a table at the end, which runs even when
// the benchmark was interrupted.
const dropWait = 30 * time.Second

// startTarget starts bin serving a fresh table behind a new proxy to store,
// with clients for the data set's owner and member; tmp receives its log and
// token key. The caller must close the target, also when startTarget fails
// (a nil target needs no closing).
func startTarget(ctx context.Context, bin *binary, store, table, tmp string) (*target, error) {
	p, err := startProxy(store)
	if err != nil {
		return nil, err
	}
	t := &target{bin: bin, proxy: p}
	secret := make([]byte, 32)
	rand.Read(secret) // never fails: it crashes the program instead
	key := hex.EncodeToString(secret)
	t.srv, err = startServer(ctx, bin, table, key, p.url, filepath.Join(tmp, table+".log"))
	if err != nil {
		return t, err
	}
	t.table = table
	keyDir := filepath.Join(tmp, table+"-key")
	for _, c := range []struct {
		client *gqlClient
		email  string
	}{{&t.owner, ownerEmail}, {&t.member, memberEmail}} {
		token, err := mintToken(ctx, bin, key, c.email, keyDir)
		if err != nil {
			return t, err
		}
		*c.client = gqlClient{url: t.srv.url, token: token}
	}
	return t, nil
}

// close stops the server, then its proxy.
func (t *target) close() error {
	var err error
	if t.srv != nil {
		err = t.srv.stop()
	}
	return errors.Join(err, t.proxy.Close())
}

// dropTable deletes a table the benchmark created, straight at the store:
// DynamoDB Local keeps every table in memory until it stops. It uses the
// credentials and region the servers use, since DynamoDB Local keeps one
// database per access key and region.
func dropTable(store, table string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dropWait)
	defer cancel()
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(store),
	})
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("delete table %s: %w", table, err)
	}
	return nil
}
