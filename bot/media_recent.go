package bot

import (
	"time"

	"maunium.net/go/mautrix/id"
)

// A member uploads a picture first and asks about it in the next message:
// each room keeps its members' latest images for a while.

// imageWindow is how long a member's latest image stays attached to their
// next questions to Ada: long enough to upload a picture and then type
// "Ada, what does this say?", short enough that a later, unrelated question
// does not drag it along.
const imageWindow = 5 * time.Minute

// recentImage is a member's latest image in a room. Only its event id is
// kept: the media (and, in encrypted rooms, its key) is fetched again when
// needed, so no image bytes or keys sit in memory between messages.
type recentImage struct {
	id id.EventID
	at time.Time // the event's server timestamp
}

// noteImage makes img the sender's latest image, and forgets images that
// are out of the window, so the map stays as small as the active senders.
func (rt *roomRuntime) noteImage(sender id.UserID, img recentImage) {
	if rt.images == nil {
		rt.images = make(map[id.UserID]recentImage)
	}
	for u, old := range rt.images {
		if img.at.Sub(old.at) > imageWindow {
			delete(rt.images, u)
		}
	}
	rt.images[sender] = img
}

// latestImage is the sender's image from the window before `at`, if any.
func (rt *roomRuntime) latestImage(sender id.UserID, at time.Time) (recentImage, bool) {
	img, ok := rt.images[sender]
	if !ok || at.Before(img.at) || at.Sub(img.at) > imageWindow {
		return recentImage{}, false
	}
	return img, true
}

// dropImage forgets an image that could not be read, so that the sender's
// next questions are not failed by it again.
func (rt *roomRuntime) dropImage(eventID id.EventID) {
	for u, img := range rt.images {
		if img.id == eventID {
			delete(rt.images, u)
		}
	}
}
