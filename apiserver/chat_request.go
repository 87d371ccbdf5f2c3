package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// decodeChatRequest reads a chat request body.
func (s *Server) decodeChatRequest(r *request) (core.ChatRequest, error) {
	if err := s.checkBody(r); err != nil {
		return core.ChatRequest{}, err
	}
	var body wire.ChatRequest
	if err := wire.Decode(r.PostBody(), &body); err != nil {
		return core.ChatRequest{}, err
	}
	req, err := body.ToCore()
	if err != nil {
		return req, err
	}
	// The model is checked before a stream starts, so that a refused one
	// is a 400 rather than an error event.
	if req.Model != "" {
		_, model := s.core.LLMInfo()
		if err := core.CheckModel(req.Model, model, s.core.Options().Models); err != nil {
			return req, err
		}
	}
	return req, core.CheckChat(&req)
}
