package device

// lru is a least-recently-used list keyed by page or block number. Nodes live in one
// slice linked by index, which keeps a cache of millions of pages to a few tens of
// bytes each.
type lru[V any] struct {
	idx        map[int64]int32
	nodes      []lruNode[V]
	head, tail int32 // head is the most recent; -1 when empty
	free       []int32
}

type lruNode[V any] struct {
	key        int64
	val        V
	prev, next int32
}

func newLRU[V any]() *lru[V] {
	return &lru[V]{idx: map[int64]int32{}, head: -1, tail: -1}
}

func (l *lru[V]) len() int { return len(l.idx) }

// get returns the value of key and makes it the most recent.
func (l *lru[V]) get(key int64) (*V, bool) {
	i, ok := l.idx[key]
	if !ok {
		return nil, false
	}
	l.unlink(i)
	l.pushFront(i)
	return &l.nodes[i].val, true
}

// peek returns the value of key without touching its position.
func (l *lru[V]) peek(key int64) (*V, bool) {
	i, ok := l.idx[key]
	if !ok {
		return nil, false
	}
	return &l.nodes[i].val, true
}

// put adds key as the most recent (or updates and touches it).
func (l *lru[V]) put(key int64, v V) {
	if i, ok := l.idx[key]; ok {
		l.nodes[i].val = v
		l.unlink(i)
		l.pushFront(i)
		return
	}
	var i int32
	if n := len(l.free); n > 0 {
		i, l.free = l.free[n-1], l.free[:n-1]
	} else {
		l.nodes = append(l.nodes, lruNode[V]{})
		i = int32(len(l.nodes) - 1)
	}
	l.nodes[i] = lruNode[V]{key: key, val: v}
	l.idx[key] = i
	l.pushFront(i)
}

// remove deletes key and returns its value.
func (l *lru[V]) remove(key int64) (V, bool) {
	i, ok := l.idx[key]
	if !ok {
		var zero V
		return zero, false
	}
	v := l.nodes[i].val
	l.unlink(i)
	delete(l.idx, key)
	l.nodes[i] = lruNode[V]{}
	l.free = append(l.free, i)
	return v, true
}

// oldest returns the least recent key.
func (l *lru[V]) oldest() (int64, V, bool) {
	if l.tail < 0 {
		var zero V
		return 0, zero, false
	}
	n := l.nodes[l.tail]
	return n.key, n.val, true
}

func (l *lru[V]) unlink(i int32) {
	n := &l.nodes[i]
	if n.prev >= 0 {
		l.nodes[n.prev].next = n.next
	} else {
		l.head = n.next
	}
	if n.next >= 0 {
		l.nodes[n.next].prev = n.prev
	} else {
		l.tail = n.prev
	}
}

func (l *lru[V]) pushFront(i int32) {
	n := &l.nodes[i]
	n.prev, n.next = -1, l.head
	if l.head >= 0 {
		l.nodes[l.head].prev = i
	}
	l.head = i
	if l.tail < 0 {
		l.tail = i
	}
}
