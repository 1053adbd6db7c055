package engine

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// A table's item count and size, and each index's, are kept up to date by
// every write (in the table's bucket, key "stats:" and the bucket's name),
// so DescribeTable, which calgraph's readiness probe calls, never reads the
// table.

func statsKey(bucket []byte) []byte { return append([]byte("stats:"), bucket...) }

// stats reads a bucket's count and size.
func stats(table *bolt.Bucket, bucket []byte) [2]int64 {
	v := table.Get(statsKey(bucket))
	if len(v) != 16 {
		return [2]int64{}
	}
	return [2]int64{int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:]))}
}

// addStats adds to a bucket's count and size.
func addStats(table *bolt.Bucket, bucket []byte, count, size int64) error {
	if count == 0 && size == 0 {
		return nil
	}
	s := stats(table, bucket)
	v := binary.BigEndian.AppendUint64(nil, uint64(s[0]+count))
	v = binary.BigEndian.AppendUint64(v, uint64(s[1]+size))
	return table.Put(statsKey(bucket), v)
}

// change is what replacing old with nw does to a bucket's count and size.
func change(old, nw item, present func(item) bool) (count, size int64) {
	if old != nil && present(old) {
		count--
		size -= int64(itemSize(old))
	}
	if nw != nil && present(nw) {
		count++
		size += int64(itemSize(nw))
	}
	return count, size
}
