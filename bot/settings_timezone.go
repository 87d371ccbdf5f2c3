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
			if refusal := checkTimeZone(raw); refusal != "" {
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
		apply: func(string, *answerSettings) {}, // reminders read it (reminders.location)
	}
}

// checkTimeZone refuses what is not an IANA time zone name, in plain words.
func checkTimeZone(name string) string {
	if _, err := time.LoadLocation(name); err != nil || name == "" || name == "Local" || strings.ContainsAny(name, " \n") {
		return fmt.Sprintf("`%s` is not a time zone I know; give an IANA name such as `Europe/Berlin`, `America/New_York` or `UTC`.", name)
	}
	return ""
}
