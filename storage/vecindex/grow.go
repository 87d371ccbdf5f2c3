package vecindex

// A large segment's codes (256 bytes a row) and heads (64) grow in the
// background too. Left to append, a write that finds them full copies them
// whole into slices a quarter larger, under the write lock: at a million
// rows 0.4–0.9 s during which every write and search waited
// (BenchmarkGrowthPause), longer than the training it replaced. Instead,
// once a segment of growMinRows rows or more has filled seven eighths of
// its codes' capacity, a goroutine allocates slices twice as large and copies the
// rows into them in chunks, each under the read lock, while writers note
// the rows they change (dirty) from the start; under the write lock it then
// copies those rows and the ones appended meanwhile again, and swaps the
// slices in. Should the segment fill up first, append grows it as before
// and the copy is dropped.

// growMinRows is the size from which a segment's codes grow in the
// background: below it, append's copy is a few milliseconds.
const growMinRows = 1 << 16

// growChunk is how many rows the grower copies under one read lock.
const growChunk = 1 << 14

// growing is a segment's codes and heads being copied into larger slices.
type growing struct {
	dirty []int32 // rows changed since the copy started
}

// touched notes that row i of s changed. x.mu must be held for writing.
func (s *codeSegment) touched(i int) {
	if s.grow != nil {
		s.grow.dirty = append(s.grow.dirty, int32(i))
	}
}

// needsRoom reports whether s, of at least min rows, is to grow its codes
// in the background.
func (s *codeSegment) needsRoom(min int) bool {
	c := cap(s.codes)
	return s.grow == nil && len(s.codes) >= min && len(s.codes) >= c-c/8
}

// startGrowing grows s's codes and heads in the background. x.mu must be
// held for writing.
func (x *Index) startGrowing(s *codeSegment) {
	g := &growing{}
	s.grow = g
	x.trainers.Add(1)
	go x.growRows(s, g, cap(s.codes))
}

// growRows copies s's codes and heads into slices twice as large as
// their capacity from (see above).
func (x *Index) growRows(s *codeSegment, g *growing, from int) {
	defer x.trainers.Done()
	codes := make([]Code, 0, 2*from)
	heads := make([][headWords]uint64, 0, cap(codes))
	for start := 0; ; start += growChunk {
		x.mu.RLock()
		n := len(s.codes)
		if start >= n || s.grow != g {
			x.mu.RUnlock()
			break
		}
		end := min(start+growChunk, n)
		codes = append(codes[:start], s.codes[start:end]...)
		heads = append(heads[:start], s.heads[start:end]...)
		x.mu.RUnlock()
	}
	if x.growHook != nil {
		x.growHook()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if s.grow != g {
		return // the index was loaded afresh (Load)
	}
	s.grow = nil
	n := len(s.codes)
	if cap(s.codes) != from || n > cap(codes) {
		return // append grew it meanwhile
	}
	codes, heads = codes[:n], heads[:n]
	// Rows past what was copied were appended (and noted dirty) since.
	for _, i := range g.dirty {
		if int(i) < n {
			codes[i], heads[i] = s.codes[i], s.heads[i]
		}
	}
	s.codes, s.heads = codes, heads
}
