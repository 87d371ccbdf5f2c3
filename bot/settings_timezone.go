package bot

import (
	"fmt"
	"strings"
	"time"
)

const timezoneSettingName = "timezone"

// timezoneSetting is the room's time zone (an IANA name): reminders are
// read and shown in it. The operator's default is TIMEZONE, else UTC.
func timezoneSetting() roomSetting {
	return roomSetting{
		name: timezoneSettingName, help: "the time zone in which I read and show times here (reminders), an IANA name such as `Europe/Berlin`",
		values: func(Options) string { return "<IANA time zone, e.g. Europe/Berlin>" },
		parse: func(_ Options, raw string) (string, string) {
			raw = strings.TrimSpace(raw)
			if _, refusal := loadTimeZone(raw); refusal != "" {
				return "", refusal
			}
			return raw, ""
		},
		def: func(o Options) string {
			if o.Reminders.TimeZone == "" {
				return "UTC"
			}
			return o.Reminders.TimeZone
		},
		apply: func(v string, s *answerSettings) {
			if loc, refusal := loadTimeZone(v); refusal == "" {
				s.location = loc
			}
		},
	}
}

// loadTimeZone loads an IANA time zone; refusal says in plain words that
// name is none.
func loadTimeZone(name string) (loc *time.Location, refusal string) {
	if name != "" && name != "Local" && !strings.ContainsAny(name, " \n") {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc, ""
		}
	}
	return nil, fmt.Sprintf("`%s` is not a time zone I know; give an IANA name such as `Europe/Berlin`, `America/New_York` or `UTC`.", name)
}

// defaultZone is TIMEZONE (Options.validate checked it), else UTC: the time
// zone of a room without its own.
func defaultZone(o ReminderOptions) *time.Location {
	loc, err := time.LoadLocation(o.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}
