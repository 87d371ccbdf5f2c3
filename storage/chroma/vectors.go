package chroma

import (
	"cmp"
	"hash/maphash"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ada-chat/ada/core"
)

const (
	// heldVectorsMax bounds the vectors conversationVectors holds: 16,384
	// of 768 numbers, 48 MB; eight conversations of 2,000 documents, four
	// of scopeReadMax.
	heldVectorsMax = 16384
	// heldFor is how long the vectors of a conversation no chat reads are
	// held: a document another replica deleted leaves its vector here no
	// longer (nor past the conversation's next read).
	heldFor = 10 * time.Minute
	// longFor is how long a conversation found longer than scopeReadMax is
	// not read whole again.
	longFor = time.Minute
)

// conversationVectors holds the vectors of the conversations read for
// chats (readConversation), so that a chat reads its conversation's
// texts and metadata, not its vectors: at 100k documents a conversation
// of 2,000 turns is 1.2 MB of JSON without them, 9.6 MB with (85 and 150
// ms for Chroma, and 12 and 200 ms to decode). A vector is used only for
// the document it was read with, holding the text it was read with (a
// document edited since, by this Ada or another, is read again). What is
// held of a document goes when this Ada deletes it (forget), when its
// conversation is read without it, or when no chat has read its
// conversation for idleFor (heldFor; a timer sweeps them while any are
// held, and each read); the conversations read least lately go first past
// heldVectorsMax; everything goes at close. It also remembers the
// conversations found too long to read whole.
type conversationVectors struct {
	seed      maphash.Seed
	idleFor   time.Duration // heldFor (tests lower it)
	mu        sync.Mutex
	convs     map[string]*heldConversation
	held      int    // vectors held, in all conversations
	clock     uint64 // counts the reads, for heldConversation.order
	deletions uint64 // counts forget's calls
	long      map[string]time.Time
	sweep     *time.Timer // the next sweep of idle conversations, while any are held
	closed    bool
}

type heldConversation struct {
	byID  map[string]heldVector
	order uint64    // the clock at its last read
	read  time.Time // its last read
}

type heldVector struct {
	text uint64 // the text's hash
	vec  []float32
}

func newConversationVectors() *conversationVectors {
	return &conversationVectors{seed: maphash.MakeSeed(), idleFor: heldFor, convs: map[string]*heldConversation{}, long: map[string]time.Time{}}
}

// fill gives each of docs, the documents of conversation conv as just
// read without their vectors, the vector held for it, and returns the
// indexes of those it holds none for. The conversation's vectors of
// documents not among docs are dropped.
func (v *conversationVectors) fill(conv string, docs []core.Document, now time.Time) (missing []int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dropIdle(now)
	v.clock++
	c := v.convs[conv]
	if c == nil {
		c = &heldConversation{byID: map[string]heldVector{}}
		v.convs[conv] = c
	}
	c.order, c.read = v.clock, now
	listed := make(map[string]bool, len(docs))
	for i := range docs {
		listed[docs[i].ID] = true
		if h, ok := c.byID[docs[i].ID]; ok && h.text == maphash.String(v.seed, docs[i].Text) {
			docs[i].Embedding = h.vec
		} else {
			missing = append(missing, i)
		}
	}
	for id := range c.byID {
		if !listed[id] {
			delete(c.byID, id)
			v.held--
		}
	}
	return missing
}

// keep holds the vectors of docs, documents of conversation conv read
// with them by a read that began when deletionCount was deletions (none
// if this Ada deleted anything since: the read may hold what was
// deleted), then drops the conversations read least lately while more
// than heldVectorsMax are held (never conv itself).
func (v *conversationVectors) keep(conv string, docs []core.Document, deletions uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.convs[conv]
	if c == nil || deletions != v.deletions || v.closed {
		return
	}
	if v.sweep == nil {
		v.sweep = time.AfterFunc(v.idleFor, v.sweepIdle)
	}
	for _, d := range docs {
		if len(d.Embedding) == 0 {
			continue
		}
		if _, ok := c.byID[d.ID]; !ok {
			v.held++
		}
		c.byID[d.ID] = heldVector{text: maphash.String(v.seed, d.Text), vec: d.Embedding}
	}
	if v.held <= heldVectorsMax {
		return
	}
	oldest := slices.SortedFunc(maps.Keys(v.convs), func(a, b string) int { return cmp.Compare(v.convs[a].order, v.convs[b].order) })
	for _, id := range oldest {
		if v.held <= heldVectorsMax {
			break
		}
		if id != conv {
			v.drop(id)
		}
	}
}

// forget drops the vectors of ids, documents this Ada deletes, and counts
// a deletion.
func (v *conversationVectors) forget(ids []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.deletions++
	for conv, c := range v.convs {
		for _, id := range ids {
			if _, ok := c.byID[id]; ok {
				delete(c.byID, id)
				v.held--
			}
		}
		if len(c.byID) == 0 {
			delete(v.convs, conv)
		}
	}
}

// deletionCount is how many times this Ada has deleted documents.
func (v *conversationVectors) deletionCount() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.deletions
}

// isLong reports whether conv was found longer than scopeReadMax within
// longFor; markLong records that it was.
func (v *conversationVectors) isLong(conv string, now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	until, ok := v.long[conv]
	return ok && now.Before(until)
}

func (v *conversationVectors) markLong(conv string, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for id, until := range v.long {
		if !now.Before(until) {
			delete(v.long, id)
		}
	}
	v.long[conv] = now.Add(longFor)
	if _, ok := v.convs[conv]; ok {
		v.drop(conv)
	}
}

// dropIdle drops the conversations no chat has read for idleFor.
func (v *conversationVectors) dropIdle(now time.Time) {
	for id, c := range v.convs {
		if now.Sub(c.read) >= v.idleFor {
			v.drop(id)
		}
	}
}

// sweepIdle drops the idle conversations, and comes back when the next
// one held will be idle.
func (v *conversationVectors) sweepIdle() {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := time.Now()
	v.dropIdle(now)
	v.sweep = nil
	if len(v.convs) == 0 || v.closed {
		return
	}
	next := v.idleFor
	for _, c := range v.convs {
		next = min(next, c.read.Add(v.idleFor).Sub(now))
	}
	v.sweep = time.AfterFunc(max(next, time.Millisecond), v.sweepIdle)
}

// close drops everything held and stops the sweeps.
func (v *conversationVectors) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.closed = true
	if v.sweep != nil {
		v.sweep.Stop()
	}
	clear(v.convs)
	v.held = 0
}

func (v *conversationVectors) drop(conv string) {
	v.held -= len(v.convs[conv].byID)
	delete(v.convs, conv)
}
