// Package when resolves the time phrases people write ("in 10 minutes",
// "tomorrow at 9", "on Friday at 10", "2026-12-01 14:30") against a
// reference time in its location, into the span of time they mean. Words
// come from a Lang table, so another language is a table, not a rewrite.
// Phrases without a direction mean the future (reminders). Past phrases
// ("yesterday", "last Saturday", "two weeks ago"), for resolving what a
// stored message meant, add their words to Lang (Days takes -1 already)
// and a direction to the parser; the Span they resolve to is the same.
// It imports nothing of Ada.
package when
