// Package marker finds SPECIALIST_REQUEST[<name>:<json_args>] markers in a
// streamed LLM answer, holding back any text that may still turn into a
// marker so that marker text never reaches a client or a stored turn.
// It is pure string handling: it must not import anything from Ada.
package marker
