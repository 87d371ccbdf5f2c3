package core

// The largest counts of each context section. The request fields (turns_k,
// faq_k, memory_k, recall_k) and the RAG_*_TOP_K settings share them: this
// is the one place they are defined.
const (
	MaxTurnsK   = 20
	MaxFAQK     = 10
	MaxMemoryK  = 20
	MaxSummaryK = 10
	MaxRecallK  = 20
)

// maxRecentConversations is the largest page of GET /v1/conversations/recent.
const maxRecentConversations = 100

// Importance is 1 (trivia) to 5 (essential).
const (
	MinImportance = 1
	MaxImportance = 5
)
