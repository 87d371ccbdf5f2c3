package chroma

import (
	"cmp"
	"hash/maphash"
	"maps"
	"slices"
	"sync"

	"github.com/ada-chat/ada/core"
)

// heldVectorsMax bounds the vectors conversationVectors holds: 16,384 of
// 768 numbers, 48 MB; eight conversations of 2,000 documents, four of
// scopeReadMax.
const heldVectorsMax = 16384

// conversationVectors holds the vectors of the conversations read for
// chats (readConversation), so that a chat reads its conversation's
// texts and metadata, not its vectors: at 100k documents a conversation
// of 2,000 turns is 1.2 MB of JSON without them, 9.6 MB with (85 and 150
// ms for Chroma, and 12 and 200 ms to decode). A vector is used only for
// the document it was read with, holding the text it was read with (a
// document edited since, by this Ada or another, is read again); a
// conversation's vectors of documents it no longer lists are dropped when
// it is read, this Ada's deletions drop theirs at once, and the
// conversations read least lately go first past heldVectorsMax.
type conversationVectors struct {
	seed  maphash.Seed
	mu    sync.Mutex
	convs map[string]*heldConversation
	held  int    // vectors held, in all conversations
	clock uint64 // counts the reads, for heldConversation.read
}

type heldConversation struct {
	byID map[string]heldVector
	read uint64 // the clock at its last read
}

type heldVector struct {
	text uint64 // the text's hash
	vec  []float32
}

func newConversationVectors() *conversationVectors {
	return &conversationVectors{seed: maphash.MakeSeed(), convs: map[string]*heldConversation{}}
}

// fill gives each of docs, the documents of conversation conv as just
// read without their vectors, the vector held for it, and returns the
// indexes of those it holds none for. The conversation's vectors of
// documents not among docs are dropped.
func (v *conversationVectors) fill(conv string, docs []core.Document) (missing []int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.clock++
	c := v.convs[conv]
	if c == nil {
		c = &heldConversation{byID: map[string]heldVector{}}
		v.convs[conv] = c
	}
	c.read = v.clock
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
// with them, then drops the conversations read least lately while more
// than heldVectorsMax are held (never conv itself).
func (v *conversationVectors) keep(conv string, docs []core.Document) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.convs[conv]
	if c == nil {
		return // forgotten meanwhile
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
	oldest := slices.SortedFunc(maps.Keys(v.convs), func(a, b string) int { return cmp.Compare(v.convs[a].read, v.convs[b].read) })
	for _, id := range oldest {
		if v.held <= heldVectorsMax {
			break
		}
		if id != conv {
			v.held -= len(v.convs[id].byID)
			delete(v.convs, id)
		}
	}
}

// forget drops the vectors of ids, documents this Ada deletes.
func (v *conversationVectors) forget(ids []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range v.convs {
		for _, id := range ids {
			if _, ok := c.byID[id]; ok {
				delete(c.byID, id)
				v.held--
			}
		}
	}
}
