package engine

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// DamageError is an engine file that is not as the engine left it: one it
// will not open, or corruption a check found. Its data cannot be trusted as
// it is, and going on would lose or hide some of it.
type DamageError struct {
	Path   string
	State  string // "empty (0 bytes)", "truncated", "damaged", "corrupt"
	Detail string // what was found, and what to do
}

func (e *DamageError) Error() string { return e.Path + " is " + e.State + ": " + e.Detail }

func damaged(path, state, format string, args ...any) error {
	return &DamageError{Path: path, State: state, Detail: fmt.Sprintf(format, args...)}
}

// bbolt's file starts with two meta pages, written alternately by each
// commit; the valid one with the higher transaction id is the database's
// state. A meta page is a page header, then these fields, native-endian,
// the last an FNV-64a checksum of those before it.
const (
	pageHeaderSize = 16
	metaSize       = 64
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
)

// meta is what verifyFile reads of one meta page.
type meta struct {
	pageSize  uint64
	highWater uint64 // pages in use: the file must hold at least this many
	txid      uint64
	problem   string // why the page is not a valid meta page, or ""
}

func readMeta(b []byte) meta {
	if len(b) < pageHeaderSize+metaSize {
		return meta{problem: "cut off by the end of the file"}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	e := binary.NativeEndian
	sum := fnv.New64a()
	sum.Write(m[:56])
	switch {
	case allZero(m):
		return meta{problem: "zeroed"}
	case e.Uint32(m[0:]) != boltMagic:
		return meta{problem: "not a meta page (wrong magic number)"}
	case e.Uint32(m[4:]) != boltVersion:
		return meta{problem: fmt.Sprintf("of an unknown format version %d", e.Uint32(m[4:]))}
	case e.Uint64(m[56:]) != sum.Sum64():
		return meta{problem: "failing its checksum"}
	}
	return meta{pageSize: uint64(e.Uint32(m[8:])), highWater: e.Uint64(m[40:]), txid: e.Uint64(m[48:])}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// verifyFile checks an existing engine file before bbolt maps it: bbolt
// would read any page below the newest commit's high-water mark through the
// map, and a page past the end of a truncated file is a SIGBUS no Go code
// can recover from. It refuses an empty file (nothing the engine writes is
// ever empty: see create), a file cut short, and a file with a damaged meta
// page. bbolt itself would open the last from the other meta page, silently
// rolling back to the commit before if the damaged one was the newer: that
// loses an acknowledged write, so the engine refuses unless told to accept
// that (Options.AcceptRollback), and then returns what it found.
func verifyFile(path string, acceptRollback bool) (rollback string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := uint64(info.Size())
	if size == 0 {
		return "", damaged(path, "empty (0 bytes)", "its data is gone from it. Restore it from a backup; to start an empty database on purpose, see the README (\"Starting afresh\")")
	}
	head := make([]byte, min(size, 64<<10))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return "", err
	}
	m0 := readMeta(head)
	pageSize := m0.pageSize
	if m0.problem != "" {
		pageSize = guessPageSize(f, size)
	}
	if pageSize == 0 {
		return "", damaged(path, "damaged", "not a database this engine wrote, or both its meta pages are damaged (%d bytes; meta page 0 is %s)", size, m0.problem)
	}
	page1 := make([]byte, pageHeaderSize+metaSize)
	n, _ := f.ReadAt(page1, int64(pageSize))
	m1 := readMeta(page1[:n])
	metas := [2]meta{m0, m1}
	newest := 0
	if m1.problem == "" && (m0.problem != "" || m1.txid > m0.txid) {
		newest = 1
	}
	if size < pageSize*2 {
		return "", damaged(path, "truncated", "%d bytes, shorter than its two meta pages (%d bytes)", size, 2*pageSize)
	}
	m := metas[newest]
	if need := m.highWater * m.pageSize; size < need {
		return "", damaged(path, "truncated", "%d bytes, but its last commit (transaction %d) uses %d pages of %d bytes (%d bytes)",
			size, m.txid, m.highWater, m.pageSize, need)
	}
	for i, bad := range metas {
		if bad.problem == "" {
			continue
		}
		found := fmt.Sprintf("meta page %d is %s; meta page %d is intact, at transaction %d", i, bad.problem, 1-i, m.txid)
		if acceptRollback {
			return found, nil
		}
		return "", damaged(path, "damaged", "%s, but opening from it would roll back whatever the damaged page committed last, without a word. "+
			"Restore the file from a backup, or accept losing that commit (see the README, \"Damage\")", found)
	}
	return "", nil
}

// guessPageSize finds the second meta page when the first is unreadable,
// trying each page size bbolt could have used, as bbolt does.
func guessPageSize(f *os.File, size uint64) uint64 {
	buf := make([]byte, pageHeaderSize+metaSize)
	for ps := uint64(1024); ps <= 16<<20 && ps+uint64(len(buf)) <= size; ps *= 2 {
		if _, err := f.ReadAt(buf, int64(ps)); err != nil {
			return 0
		}
		if m := readMeta(buf); m.problem == "" && m.pageSize == ps {
			return ps
		}
	}
	return 0
}
