package bot

import (
	"context"
	"testing"
	"testing/synctest"

	"maunium.net/go/mautrix/event"
)

// TestTakeBackWaitsForHeldSends: a reaction of an answer sent in the
// background (🧠 at the start, ✅ after the reply) is held, so that its
// asker's `!ada forget me` (takeBackFrom) or edit (takeBackAsked, then
// quiet) finds the answer even when it has otherwise ended, and goes on
// only once the reaction is sent and linked: the take-back then sees it.
// A send that would start after the take-back is refused. The goroutines
// run in a synctest bubble: Wait returns once they are all blocked, so
// "still waiting" is checked without sleeping.
func TestTakeBackWaitsForHeldSends(t *testing.T) {
	q := &event.Event{RoomID: "!room:hs", ID: "$question", Sender: "@bob:hs"}
	for name, takeBack := range map[string]func(f *answersInFlight) bool{
		"ForgetMe": func(f *answersInFlight) bool { return f.takeBackFrom(context.Background(), q.RoomID, q.Sender) == 1 },
		"Edit": func(f *answersInFlight) bool {
			stopped := f.takeBackAsked(q.RoomID, q.ID, q.Sender)
			if stopped != nil {
				stopped.quiet(context.Background())
			}
			return stopped != nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var f answersInFlight
				taking, finished := f.start(q)
				release, ok := taking.hold() // ✅ on its way
				if !ok {
					t.Fatal("a send of an answer not taken back was refused")
				}
				finished() // the answer itself is done
				found := make(chan bool, 1)
				go func() { found <- takeBack(&f) }()
				synctest.Wait()
				select {
				case <-found:
					t.Fatal("the take-back went on while a reaction of the answer was still being sent")
				default:
				}
				if _, ok := taking.hold(); ok {
					t.Error("a send that starts after the take-back must be refused")
				}
				release() // the reaction is sent and linked
				if !<-found {
					t.Error("the take-back did not find the answer whose reaction was being sent")
				}
				if f.takeBackAsked(q.RoomID, q.ID, q.Sender) != nil {
					t.Error("the answer is still registered after its last send")
				}
			})
		})
	}
}
