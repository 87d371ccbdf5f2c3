package media

import (
	"fmt"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// describe turns l into the sentence given to the model. now makes "how long
// ago" testable.
func describe(l core.Listening, now time.Time) string {
	what := track(l)
	switch {
	case l.Status == core.ListeningPlaying:
		return fmt.Sprintf("The user is listening to %s right now.", what)
	case what == "":
		return "The user is not listening to music right now, and the music provider has no listening history for them."
	case l.ListenedAt == nil:
		return fmt.Sprintf("The user is not listening to music right now. The last track they listened to was %s.", what)
	case l.Status == core.ListeningRecent:
		return fmt.Sprintf("The user is not playing anything right now, but listened to %s %s (%s).",
			what, ago(now.Sub(*l.ListenedAt)), l.ListenedAt.UTC().Format(time.RFC3339))
	default:
		return fmt.Sprintf("The user is not listening to music right now. The last track they listened to was %s, %s (%s).",
			what, ago(now.Sub(*l.ListenedAt)), l.ListenedAt.UTC().Format(time.RFC3339))
	}
}

// track names the track as `"Title" by Artist from the release "Album"`,
// leaving out whatever the provider did not record.
func track(l core.Listening) string {
	var parts []string
	if l.Track != "" {
		parts = append(parts, fmt.Sprintf("%q", l.Track))
	}
	if l.Artist != "" {
		parts = append(parts, "by "+l.Artist)
	}
	if len(parts) == 0 {
		return ""
	}
	if l.Release != "" {
		parts = append(parts, fmt.Sprintf("from the release %q", l.Release))
	}
	return strings.Join(parts, " ")
}

// ago says how long ago in words, rounded down to the largest unit.
func ago(d time.Duration) string {
	unit := func(n int, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, name)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return unit(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return unit(int(d/time.Hour), "hour")
	default:
		return unit(int(d/(24*time.Hour)), "day")
	}
}
