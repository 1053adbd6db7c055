package dynamo

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// hasher writes attribute values unambiguously (a type tag and lengths
// before contents, map keys sorted) into a SHA-256.
type hasher struct {
	buf []byte
}

func digestOf(write func(h *hasher)) digest {
	h := &hasher{buf: make([]byte, 0, 1024)}
	write(h)
	return sha256.Sum256(h.buf)
}

func (h *hasher) str(s string) {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
}

func (h *hasher) item(it map[string]types.AttributeValue) {
	names := make([]string, 0, len(it))
	for n := range it {
		names = append(names, n)
	}
	slices.Sort(names)
	h.buf = binary.AppendUvarint(h.buf, uint64(len(names)))
	for _, n := range names {
		h.str(n)
		h.value(it[n])
	}
}

func (h *hasher) value(v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		h.buf = append(h.buf, 'S')
		h.str(v.Value)
	case *types.AttributeValueMemberN:
		h.buf = append(h.buf, 'N')
		h.str(v.Value)
	case *types.AttributeValueMemberB:
		h.buf = append(h.buf, 'B')
		h.str(string(v.Value))
	case *types.AttributeValueMemberBOOL:
		h.buf = append(h.buf, 'T')
		h.buf = strconv.AppendBool(h.buf, v.Value)
	case *types.AttributeValueMemberNULL:
		h.buf = append(h.buf, '0')
	case *types.AttributeValueMemberM:
		h.buf = append(h.buf, 'M')
		h.item(v.Value)
	case *types.AttributeValueMemberL:
		h.buf = append(h.buf, 'L')
		h.buf = binary.AppendUvarint(h.buf, uint64(len(v.Value)))
		for _, e := range v.Value {
			h.value(e)
		}
	case *types.AttributeValueMemberSS:
		h.set('s', v.Value)
	case *types.AttributeValueMemberNS:
		h.set('n', v.Value)
	case *types.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, b := range v.Value {
			bs[i] = string(b)
		}
		h.set('b', bs)
	default:
		// An attribute type this does not know: a digest that never
		// matches again, so the answer is never served.
		h.buf = append(h.buf, '?')
		h.str(strconv.Itoa(int(uncomparable.Add(1))))
	}
}

// set writes a set in order: DynamoDB does not keep one.
func (h *hasher) set(tag byte, vs []string) {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	h.buf = append(h.buf, tag)
	h.buf = binary.AppendUvarint(h.buf, uint64(len(vs)))
	for _, s := range vs {
		h.str(s)
	}
}

// uncomparable makes the digest of each unknown attribute type unique.
var uncomparable atomic.Int64
