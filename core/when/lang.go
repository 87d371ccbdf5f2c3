package when

import "time"

// Lang is the vocabulary of one language. Words are lower case; the
// resolver matches whole words, any case.
type Lang struct {
	// In starts a duration from now ("in 10 minutes").
	In []string
	// At starts a time of day ("at 14:30"), On a day ("on Friday").
	At, On []string
	// Days are the words for a day relative to the reference: 0 = today,
	// 1 = tomorrow. (Past days, -1 = yesterday, are for resolving what
	// messages said; reminders refuse times in the past.)
	Days map[string]int
	// Weekdays name the days of the week, full and short forms.
	Weekdays map[string]time.Weekday
	// Units are the units of a duration, singular and plural.
	Units map[string]Unit
	// Numbers are the counts written as words ("a", "two").
	Numbers map[string]int
	// AM and PM mark a 12-hour clock ("9am", "9 pm").
	AM, PM []string
	// Noon and Midnight are times of day by name.
	Noon, Midnight []string

	// What Find reads besides the above (times a message mentions).
	// Last, Next and This give a weekday, a part of a day or a Period a
	// direction ("last Saturday", "next month", "this morning").
	Last, Next, This []string
	// Ago follows a quantity of the past ("two weeks ago").
	Ago []string
	// Periods are the calendar periods by name, singular and plural.
	Periods map[string]Period
	// DayParts are the parts of a day ("morning", "night"): "this
	// morning" is today, "last night" yesterday. Tonight are the words
	// for this evening (Find reads them as today; a reminder needs a
	// time of day, so Prefix does not).
	DayParts []string
	Tonight  []string
	// Vague are counts without a number ("few", "couple"), after one of
	// Articles and before an optional Of ("a couple of weeks ago").
	Vague        map[string]int
	Articles, Of []string
	// WeekStart is the first day of a week ("last week").
	WeekStart time.Weekday

	// Dates a message names, read by Find (see dates.go).
	// Months name the months, full and short forms. A month next to a day
	// or a year is a date ("13 October", "October 13th, 2023", "May
	// 2023"); alone ("in June") it counts only when capitalised, if
	// MonthsCapitalised (as the language writes months), and never when
	// it is one of MonthWords: words that are months only next to a day
	// or a year ("may", "march", short forms like "jan").
	Months            map[string]time.Month
	MonthsCapitalised bool
	MonthWords        []string
	// Ordinals follow a day's number ("13th").
	Ordinals []string
	// DayFirst reads a numeric date as day/month ("14/05"); when one of
	// the numbers is over 12 it is the day, whatever this says.
	DayFirst bool
	// Named are the dates a language names every year ("Christmas"),
	// longer phrases before shorter ones of the same first word.
	Named []NamedDate

	// AskWhen starts a question that asks for a time ("when …?");
	// AskWhenPhrases ask for one anywhere in it ("what date", "how long
	// ago"). See AsksWhen.
	AskWhen        []string
	AskWhenPhrases [][]string
}

// NamedDate is a day of every year by name: Words are its lower-case
// words, as written.
type NamedDate struct {
	Words []string
	Month time.Month
	Day   int
}

// Unit is one unit of a duration: a fixed length (seconds to hours), or
// calendar days, which keep the wall-clock time across a DST change.
type Unit struct {
	Fixed time.Duration
	Days  int
}

// English is the English table.
var English = Lang{
	In:   []string{"in"},
	At:   []string{"at"},
	On:   []string{"on"},
	Days: map[string]int{"today": 0, "tomorrow": 1, "yesterday": -1},
	Weekdays: map[string]time.Weekday{
		"sunday": time.Sunday, "sun": time.Sunday, "monday": time.Monday, "mon": time.Monday,
		"tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
		"wednesday": time.Wednesday, "wed": time.Wednesday, "thursday": time.Thursday, "thu": time.Thursday,
		"thurs": time.Thursday, "friday": time.Friday, "fri": time.Friday, "saturday": time.Saturday, "sat": time.Saturday,
	},
	Units: map[string]Unit{
		"second": {Fixed: time.Second}, "seconds": {Fixed: time.Second}, "sec": {Fixed: time.Second}, "secs": {Fixed: time.Second},
		"minute": {Fixed: time.Minute}, "minutes": {Fixed: time.Minute}, "min": {Fixed: time.Minute}, "mins": {Fixed: time.Minute},
		"hour": {Fixed: time.Hour}, "hours": {Fixed: time.Hour}, "hr": {Fixed: time.Hour}, "hrs": {Fixed: time.Hour},
		"day": {Days: 1}, "days": {Days: 1}, "week": {Days: 7}, "weeks": {Days: 7},
	},
	Numbers: map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30},
	AM:       []string{"am", "a.m."},
	PM:       []string{"pm", "p.m."},
	Noon:     []string{"noon", "midday"},
	Midnight: []string{"midnight"},
	Last:     []string{"last"},
	Next:     []string{"next"},
	This:     []string{"this"},
	Ago:      []string{"ago"},
	Periods: map[string]Period{"week": Week, "weeks": Week, "weekend": Weekend, "month": Month, "months": Month,
		"year": Year, "years": Year},
	DayParts:  []string{"morning", "afternoon", "evening", "night"},
	Tonight:   []string{"tonight"},
	Vague:     map[string]int{"few": 3, "couple": 2, "several": 3},
	Articles:  []string{"a"},
	Of:        []string{"of"},
	WeekStart: time.Monday,
	Months: map[string]time.Month{
		"january": time.January, "jan": time.January, "february": time.February, "feb": time.February,
		"march": time.March, "mar": time.March, "april": time.April, "apr": time.April, "may": time.May,
		"june": time.June, "jun": time.June, "july": time.July, "jul": time.July, "august": time.August,
		"aug": time.August, "september": time.September, "sep": time.September, "sept": time.September,
		"october": time.October, "oct": time.October, "november": time.November, "nov": time.November,
		"december": time.December, "dec": time.December,
	},
	MonthsCapitalised: true,
	MonthWords:        []string{"may", "march", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"},
	Ordinals:          []string{"st", "nd", "rd", "th"},
	DayFirst:          true,
	Named: []NamedDate{
		{Words: []string{"christmas", "eve"}, Month: time.December, Day: 24},
		{Words: []string{"christmas", "day"}, Month: time.December, Day: 25},
		{Words: []string{"christmas"}, Month: time.December, Day: 25},
		{Words: []string{"new", "year's", "eve"}, Month: time.December, Day: 31},
		{Words: []string{"new", "year's", "day"}, Month: time.January, Day: 1},
		{Words: []string{"valentine's", "day"}, Month: time.February, Day: 14},
		{Words: []string{"halloween"}, Month: time.October, Day: 31},
	},
	AskWhen:        []string{"when"},
	AskWhenPhrases: [][]string{{"what", "date"}, {"how", "long", "ago"}},
}
