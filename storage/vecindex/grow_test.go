package vecindex

import (
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
)

// A segment's codes grow in the background (grow.go): rows deleted, moved
// and written while the copy waits are right after the swap, which gives
// the segment the larger slices; and a segment that fills up before the
// copy is done grows by append, the copy dropped.
func TestCodesGrowInTheBackground(t *testing.T) {
	for _, fill := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			codes := topicVectors(rand.New(rand.NewPCG(31, 32)), 3000, 50)
			x := New()
			x.growMin = 200
			ch := make(chan struct{})
			x.growHook = func() { <-ch }
			want := map[int64]Code{}
			var from int
			rowid := 0
			for ; ; rowid++ {
				x.Apply(memoryOps(codes, rowid, rowid+1))
				want[int64(rowid)] = codes[rowid]
				x.mu.RLock()
				growing, c := x.segs[0].grow != nil, cap(x.segs[0].codes)
				x.mu.RUnlock()
				if growing {
					from = c
					break
				}
			}
			rowid++
			synctest.Wait() // the copy is made and waits
			// Every 4th row deleted (the last rows move into the holes),
			// then rows written: within the capacity, or past it.
			var churn []Op
			for r := 0; r < rowid; r += 4 {
				churn = append(churn, Op{Del: true, Rowid: int64(r)})
				delete(want, int64(r))
			}
			x.Apply(churn)
			more := 20
			if fill {
				more = from
			}
			x.Apply(memoryOps(codes, rowid, rowid+more))
			for r := rowid; r < rowid+more; r++ {
				want[int64(r)] = codes[r]
			}
			close(ch)
			synctest.Wait()
			x.mu.RLock()
			c := cap(x.segs[0].codes)
			x.mu.RUnlock()
			if !fill && c != 2*from {
				t.Fatalf("capacity %d after growing from %d in the background", c, from)
			}
			rows, err := x.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(rows), len(want))
			}
			for r, c := range want {
				if rows[r].Code != c {
					t.Fatalf("row %d: not its code after the growth", r)
				}
				if got := x.Nearest(&c, Filter{}, 1); !slices.Equal(got, []int64{r}) && hamming(&codes[got[0]], &c) != 0 {
					t.Fatalf("row %d not found by its code: %v", r, got)
				}
			}
		})
	}
}
