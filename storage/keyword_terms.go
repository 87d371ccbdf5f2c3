package storage

import "strings"

// KeywordTerms are the words of text a keyword search looks for, as
// KeywordSearch picks them (lower-cased, no stop words, at most
// maxQueryTerms), unquoted: the Chroma backend ranks its keyword
// candidates with the same terms.
func KeywordTerms(text string) []string {
	terms := queryTerms(text)
	for i, t := range terms {
		terms[i] = strings.Trim(t, `"`)
	}
	return terms
}
