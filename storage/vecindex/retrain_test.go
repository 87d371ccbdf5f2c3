package vecindex

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/ada-chat/ada/core"
)

// memoryOps are ops writing codes[from:to] as global memories, rowid = index.
func memoryOps(codes []Code, from, to int) []Op {
	ops := make([]Op, 0, to-from)
	for i := from; i < to; i++ {
		ops = append(ops, Op{Rowid: int64(i), Type: string(core.DocMemory), Scope: core.ScopeGlobal, Code: codes[i]})
	}
	return ops
}

// blockTraining makes x's trainings wait, once they have copied their
// segment, until release is closed.
func blockTraining(x *Index) (release func()) {
	ch := make(chan struct{})
	x.trainHook = func() { <-ch }
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// trainingState reports whether x's only segment is being trained, and whether
// it has lists.
func trainingState(x *Index) (train, lists bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.segs[0].train != nil, x.segs[0].ivf != nil
}

// A segment's lists are trained in the background: while a training is
// held up, a write and a search complete (training inside Apply, under the
// write lock, made both wait for it), and the lists arrive when it ends.
func TestWritesAndSearchesGoOnWhileListsAreTrained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		codes := topicVectors(rand.New(rand.NewPCG(21, 22)), 2000, 100)
		x := smallIndex() // lists from 1,500 rows
		release := blockTraining(x)
		defer release()
		x.Apply(memoryOps(codes, 0, 1500))
		synctest.Wait() // the training has copied the segment and waits
		x.Apply(memoryOps(codes, 1500, 2000))
		if got := x.Nearest(&codes[1700], Filter{}, 1); !slices.Equal(got, []int64{1700}) {
			t.Fatalf("a row written during the training: nearest %v, want [1700]", got)
		}
		if train, lists := trainingState(x); !train || lists {
			t.Fatalf("training %v, lists %v: the write and search did not happen during the training", train, lists)
		}
		release()
		synctest.Wait()
		if train, lists := trainingState(x); train || !lists {
			t.Fatalf("after the training: training %v, lists %v", train, lists)
		}
		if _, err := x.Rows(); err != nil {
			t.Fatal(err)
		}
	})
}

// Rows written, deleted and moved while a segment's lists are trained (on
// a copy of its rows) are right in the lists swapped in: a deleted row is
// in no list and is never found again, a row written meanwhile is found by
// its own code, and every row is where the lists say. Both a first
// training and a retraining (the old lists kept up meanwhile) are checked.
func TestRowsChangedDuringTrainingAreRightAfterTheSwap(t *testing.T) {
	for _, tc := range []struct {
		name        string
		seed, first int // rows before the training starts
		added       int // rows written during it
	}{
		{"first lists", 300, 500, 600},
		{"lists trained again", 500, 2000, 600},
		// Few enough changes for the whole log to be replayed under the
		// lock, where the others take a round without it first.
		{"few changes meanwhile", 300, 500, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				added := tc.added
				codes := topicVectors(rand.New(rand.NewPCG(23, 24)), tc.first+added, 150)
				x := smallIndex()
				x.listMin = 500
				x.Apply(memoryOps(codes, 0, tc.seed))
				x.trainers.Wait()
				release := blockTraining(x)
				defer release()
				x.Apply(memoryOps(codes, tc.seed, tc.first))
				synctest.Wait()
				if train, _ := trainingState(x); !train {
					t.Fatal("no training under way: the test does not reach it")
				}
				// Meanwhile: every 5th old row deleted (the segment's last
				// rows move into the holes), rows written, every 3rd of
				// them deleted again, every 13th old row moved to another
				// scope.
				deleted := map[int64]bool{}
				var churn []Op
				for i := 0; i < tc.first; i += 5 {
					churn = append(churn, Op{Del: true, Rowid: int64(i)})
					deleted[int64(i)] = true
				}
				x.Apply(churn)
				x.Apply(memoryOps(codes, tc.first, tc.first+added))
				churn = churn[:0]
				for i := tc.first; i < tc.first+added; i += 3 {
					churn = append(churn, Op{Del: true, Rowid: int64(i)})
					deleted[int64(i)] = true
				}
				for i := 1; i < tc.first; i += 13 {
					if !deleted[int64(i)] {
						churn = append(churn, Op{Rowid: int64(i), Type: string(core.DocMemory), Scope: "entity:moved", Code: codes[i]})
					}
				}
				x.Apply(churn)
				release()
				synctest.Wait()
				if train, lists := trainingState(x); train || !lists {
					t.Fatalf("after the training: training %v, lists %v", train, lists)
				}
				rows, err := x.Rows()
				if err != nil {
					t.Fatal(err)
				}
				if want := tc.first + added - len(deleted); len(rows) != want {
					t.Fatalf("%d rows held, want %d", len(rows), want)
				}
				for i := range tc.first + added {
					if !deleted[int64(i)] && i%5 != 2 {
						continue // every deleted row, a sample of the rest
					}
					got := x.Nearest(&codes[i], Filter{}, 3)
					switch {
					case deleted[int64(i)] && slices.Contains(got, int64(i)):
						t.Fatalf("deleted row %d found by its own code", i)
					case !deleted[int64(i)] && !slices.Contains(got, int64(i)):
						t.Fatalf("row %d not found by its own code: %v", i, got)
					}
				}
				if got := x.Nearest(&codes[14], Filter{Scopes: []string{"entity:moved"}}, 1); !slices.Equal(got, []int64{14}) {
					t.Fatalf("a row moved to another scope during the training: %v in that scope, want [14]", got)
				}
			})
		})
	}
}
