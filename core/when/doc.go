// Package when resolves the time phrases people write ("in 10 minutes",
// "tomorrow at 9", "on Friday at 10", "2026-12-01 14:30") against a
// reference time in its location, into the span of time they mean. Words
// come from a Lang table, so another language is a table, not a rewrite.
// Prefix reads the time a reminder starts with; phrases without a
// direction mean the future there. Find reads every time a message
// mentions, past or future ("yesterday", "last Saturday", "two weeks ago",
// "in three days", "next month"), into the days, weeks, months or years
// they mean, to remember what a stored message meant.
// It imports nothing of Ada.
package when
