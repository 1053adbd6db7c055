package graphiql

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"time"
)

// AssetsPath is where the page's scripts and styles are served:
// AssetsPath + "<hash>/<file>", the hash the first 16 hex digits of the
// file's SHA-256. A path names one content for ever, so browsers and proxies
// keep it a year without asking again, and a new version of calgraph (new
// bytes, new path) is never served an old copy.
const AssetsPath = "/graphiql/"

// files are the page's assets: third-party bundles pinned from the npm
// registry (vendor/manifest.json says which; vendor/refresh.cjs refreshes and
// verifies them) and calgraph's own script and style (static/).
//
//go:embed vendor/*.js vendor/*.css static/*.js static/*.css
var files embed.FS

// asset is one file as served.
type asset struct {
	name        string // the file's name, as the page template names it
	url         string // AssetsPath + hash + "/" + name
	etag        string
	contentType string
	body        []byte
}

// assets are the embedded files by name, and by URL path.
var assets, assetsByURL = loadAssets()

func loadAssets() (byName, byURL map[string]*asset) {
	byName, byURL = map[string]*asset{}, map[string]*asset{}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		name := path.Base(p)
		a := &asset{name: name, body: body, etag: `"` + hex.EncodeToString(sum[:]) + `"`,
			url: AssetsPath + hex.EncodeToString(sum[:8]) + "/" + name, contentType: contentTypes[path.Ext(name)]}
		if byName[name] != nil {
			panic("graphiql: two assets named " + name)
		}
		byName[name], byURL[a.url] = a, a
		return nil
	})
	if err != nil {
		panic(err) // embedded files
	}
	return byName, byURL
}

var contentTypes = map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}

// assetURL is the path the page loads the asset name from; the template's
// "asset" function. An unknown name fails the template at start-up.
func assetURL(name string) (string, error) {
	a := assets[name]
	if a == nil {
		return "", fs.ErrNotExist
	}
	return a.url, nil
}

// Assets serves the page's scripts and styles under AssetsPath, cached for
// a year (immutable: see AssetsPath), with an ETag; any other path is 404.
func Assets() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := assetsByURL[r.URL.Path]
		if a == nil {
			http.Error(w, "no such asset: GraphiQL's assets change paths with each version; reload the page", http.StatusNotFound)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("ETag", a.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(a.body))
	})
}
