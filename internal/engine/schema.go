package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"
)

// keySchema names a table's or an index's key attributes; rangeKey is empty
// when there is no sort key.
type keySchema struct {
	Hash  string `json:"hash"`
	Range string `json:"range,omitempty"`
}

func (k keySchema) attrs() []string {
	if k.Range == "" {
		return []string{k.Hash}
	}
	return []string{k.Hash, k.Range}
}

// index is a secondary index: its keys and what it projects.
type index struct {
	Name       string    `json:"name"`
	Local      bool      `json:"local,omitempty"`
	Keys       keySchema `json:"keys"`
	Projection string    `json:"projection"` // ALL, KEYS_ONLY or INCLUDE
	NonKey     []string  `json:"nonKey,omitempty"`
	RCU        int64     `json:"rcu,omitempty"`
	WCU        int64     `json:"wcu,omitempty"`
}

// tableMeta is everything the engine keeps about a table besides its items.
type tableMeta struct {
	Name      string            `json:"name"`
	Keys      keySchema         `json:"keys"`
	AttrTypes map[string]string `json:"attrTypes"`
	Indexes   []index           `json:"indexes,omitempty"`
	Billing   string            `json:"billing"`
	RCU       int64             `json:"rcu,omitempty"`
	WCU       int64             `json:"wcu,omitempty"`
	TTLAttr   string            `json:"ttlAttr,omitempty"`
	Created   time.Time         `json:"created"`
	// ID tells apart a table from an earlier one of the same name (its
	// bucket name).
	ID uint64 `json:"id"`
}

func (m *tableMeta) index(name string) *index {
	for i := range m.Indexes {
		if m.Indexes[i].Name == name {
			return &m.Indexes[i]
		}
	}
	return nil
}

// projects reports whether the index holds the attribute.
func (m *tableMeta) projects(ix *index, attr string) bool {
	if ix.Projection == "ALL" || slices.Contains(m.Keys.attrs(), attr) || slices.Contains(ix.Keys.attrs(), attr) {
		return true
	}
	return ix.Projection == "INCLUDE" && slices.Contains(ix.NonKey, attr)
}

// project returns what the index holds of an item.
func (m *tableMeta) project(ix *index, it item) item {
	if ix.Projection == "ALL" {
		return it
	}
	out := item{}
	for k, v := range it {
		if m.projects(ix, k) {
			out[k] = v
		}
	}
	return out
}

var tableNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

func checkTableName(name string) error {
	if !tableNamePattern.MatchString(name) {
		return validation("Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'")
	}
	return nil
}

// wire types of the table operations.
type (
	wireKeyElement struct {
		AttributeName string `json:"AttributeName"`
		KeyType       string `json:"KeyType"`
	}
	wireAttrDef struct {
		AttributeName string `json:"AttributeName"`
		AttributeType string `json:"AttributeType"`
	}
	wireProjection struct {
		ProjectionType   string   `json:"ProjectionType,omitempty"`
		NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
	}
	wireThroughput struct {
		ReadCapacityUnits  int64 `json:"ReadCapacityUnits"`
		WriteCapacityUnits int64 `json:"WriteCapacityUnits"`
	}
	wireStreams struct {
		StreamEnabled  bool   `json:"StreamEnabled"`
		StreamViewType string `json:"StreamViewType,omitempty"`
	}
	wireIndex struct {
		IndexName             string           `json:"IndexName"`
		KeySchema             []wireKeyElement `json:"KeySchema"`
		Projection            *wireProjection  `json:"Projection"`
		ProvisionedThroughput *wireThroughput  `json:"ProvisionedThroughput,omitempty"`
	}
)

func parseKeySchema(elems []wireKeyElement, what string) (keySchema, error) {
	var k keySchema
	switch {
	case len(elems) == 0 || len(elems) > 2:
		return k, validation(fmt.Sprintf("1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to 2", what))
	case elems[0].KeyType != "HASH":
		return k, validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	case len(elems) == 2 && elems[1].KeyType != "RANGE":
		return k, validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	case len(elems) == 2 && elems[0].AttributeName == elems[1].AttributeName:
		return k, validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	k.Hash = elems[0].AttributeName
	if len(elems) == 2 {
		k.Range = elems[1].AttributeName
	}
	return k, nil
}

func parseIndex(w wireIndex, local bool) (index, error) {
	if !tableNamePattern.MatchString(w.IndexName) {
		return index{}, validation("Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'")
	}
	keys, err := parseKeySchema(w.KeySchema, "keySchema")
	if err != nil {
		return index{}, err
	}
	ix := index{Name: w.IndexName, Local: local, Keys: keys, Projection: "ALL"}
	if w.Projection == nil || w.Projection.ProjectionType == "" {
		return index{}, validation("One or more parameter values were invalid: Unknown ProjectionType: null")
	}
	ix.Projection, ix.NonKey = w.Projection.ProjectionType, w.Projection.NonKeyAttributes
	switch ix.Projection {
	case "ALL", "KEYS_ONLY":
		if len(ix.NonKey) > 0 {
			return index{}, validation("One or more parameter values were invalid: ProjectionType is " + ix.Projection + ", but NonKeyAttributes is specified")
		}
	case "INCLUDE":
	default:
		return index{}, validation("One or more parameter values were invalid: Unknown ProjectionType: " + ix.Projection)
	}
	if w.ProvisionedThroughput != nil {
		ix.RCU, ix.WCU = w.ProvisionedThroughput.ReadCapacityUnits, w.ProvisionedThroughput.WriteCapacityUnits
	}
	return ix, nil
}

// description is a table's DescribeTable answer.
func (m *tableMeta) description(status string, items, bytes int64, ixStats map[string][2]int64) map[string]any {
	arn := "arn:aws:dynamodb:ddblocal:000000000000:table/" + m.Name
	var defs []wireAttrDef
	for _, name := range slices.Sorted(maps.Keys(m.AttrTypes)) {
		defs = append(defs, wireAttrDef{name, m.AttrTypes[name]})
	}
	d := map[string]any{
		"TableName": m.Name, "TableStatus": status, "TableArn": arn, "TableId": fmt.Sprintf("%016x", m.ID),
		"KeySchema": wireKeys(m.Keys), "AttributeDefinitions": defs,
		"CreationDateTime": float64(m.Created.UnixMilli()) / 1000,
		"ItemCount":        items, "TableSizeBytes": bytes,
		"ProvisionedThroughput": map[string]any{"ReadCapacityUnits": m.RCU, "WriteCapacityUnits": m.WCU,
			"NumberOfDecreasesToday": 0, "LastIncreaseDateTime": 0, "LastDecreaseDateTime": 0},
	}
	if m.Billing == "PAY_PER_REQUEST" {
		d["BillingModeSummary"] = map[string]any{"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": d["CreationDateTime"]}
	}
	var gsis, lsis []map[string]any
	for _, ix := range m.Indexes {
		proj := wireProjection{ProjectionType: ix.Projection, NonKeyAttributes: ix.NonKey}
		st := ixStats[ix.Name]
		desc := map[string]any{"IndexName": ix.Name, "KeySchema": wireKeys(ix.Keys), "Projection": proj,
			"IndexArn": arn + "/index/" + ix.Name, "ItemCount": st[0], "IndexSizeBytes": st[1]}
		if ix.Local {
			lsis = append(lsis, desc)
			continue
		}
		desc["IndexStatus"] = "ACTIVE"
		desc["ProvisionedThroughput"] = map[string]any{"ReadCapacityUnits": ix.RCU, "WriteCapacityUnits": ix.WCU}
		gsis = append(gsis, desc)
	}
	if gsis != nil {
		d["GlobalSecondaryIndexes"] = gsis
	}
	if lsis != nil {
		d["LocalSecondaryIndexes"] = lsis
	}
	return d
}

func wireKeys(k keySchema) []wireKeyElement {
	out := []wireKeyElement{{k.Hash, "HASH"}}
	if k.Range != "" {
		out = append(out, wireKeyElement{k.Range, "RANGE"})
	}
	return out
}

func marshalMeta(m *tableMeta) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // plain data
	}
	return b
}

// check refuses a stream: the engine has none, and a table created without
// the one asked for would silently lose every change its reader expects.
// A specification that disables streams asks for nothing and is accepted.
func (s *wireStreams) check() error {
	if s != nil && s.StreamEnabled {
		return validation("the embedded engine does not support streams: StreamSpecification must not enable one")
	}
	return nil
}
