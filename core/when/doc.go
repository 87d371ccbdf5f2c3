// Package when resolves the time phrases people write ("in 10 minutes",
// "tomorrow at 9", "on Friday at 10", "2026-12-01 14:30") against a
// reference time in its location, into the span of time they mean. Words
// come from a Lang table, so another language is a table, not a rewrite.
// It imports nothing of Ada.
package when
