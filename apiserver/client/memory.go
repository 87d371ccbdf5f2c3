package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// maxJSONBody bounds a JSON answer of the memory and conversation routes
// (20 memories of at most 10,000 characters each).
const maxJSONBody = 4 << 20

// CreateMemory posts a memory to /v1/memory. A refreshed duplicate comes
// back with Deduplicated set, as from the core.
func (c *Client) CreateMemory(ctx context.Context, in core.MemoryInput) (core.Memory, error) {
	body := wire.MemoryCreateOf(in)
	payload, err := json.Marshal(body)
	if err != nil {
		return core.Memory{}, core.Wrap(core.KindInternal, err, "encode memory")
	}
	var m core.Memory
	return m, c.call(ctx, http.MethodPost, "/v1/memory", payload, &m)
}

// MemoryPage lists memories newest first (q without Text) or searches them,
// like core.Service.MemoryPage.
func (c *Client) MemoryPage(ctx context.Context, q core.MemoryQuery) (core.MemoryPageResult, error) {
	var page wire.MemoryPage
	if err := c.call(ctx, http.MethodGet, "/v1/memory?"+wire.MemoryQueryValues(q).Encode(), nil, &page); err != nil {
		return core.MemoryPageResult{}, err
	}
	return page.ToCore(), nil
}

// GetMemory reads one memory (GET /v1/memory/{id}).
func (c *Client) GetMemory(ctx context.Context, id string) (core.Memory, error) {
	var m core.Memory
	return m, c.call(ctx, http.MethodGet, "/v1/memory/"+url.PathEscape(id), nil, &m)
}

// DeleteMemory deletes one memory (DELETE /v1/memory/{id}); reason, if not
// empty, goes into its history.
func (c *Client) DeleteMemory(ctx context.Context, id, reason string) error {
	path := "/v1/memory/" + url.PathEscape(id)
	if reason != "" {
		path += "?" + url.Values{"reason": {reason}}.Encode()
	}
	return c.call(ctx, http.MethodDelete, path, nil, nil)
}

// DeleteTurn deletes one turn and what was learned only from it
// (DELETE /v1/conversations/{conversation_id}/turns/{turn_id}); reason, if
// not empty, goes into the history of the memories deleted with it.
func (c *Client) DeleteTurn(ctx context.Context, conversationID, turnID, reason string) error {
	path := "/v1/conversations/" + url.PathEscape(conversationID) + "/turns/" + url.PathEscape(turnID)
	if reason != "" {
		path += "?" + url.Values{"reason": {reason}}.Encode()
	}
	return c.call(ctx, http.MethodDelete, path, nil, nil)
}

// Forget deletes what Ada holds from and about a person
// (DELETE /v1/memory?entity=...), in one room when RoomID is set.
func (c *Client) Forget(ctx context.Context, req core.ForgetRequest) (core.ForgetResult, error) {
	q := url.Values{"entity": {req.Entity}}
	if req.RoomID != "" {
		q.Set("room_id", req.RoomID)
	}
	if req.Reason != "" {
		q.Set("reason", req.Reason)
	}
	var res core.ForgetResult
	return res, c.call(ctx, http.MethodDelete, "/v1/memory?"+q.Encode(), nil, &res)
}

// call sends one JSON request and decodes a 2xx answer into out (if not
// nil); any other status is a core error of the matching kind.
func (c *Client) call(ctx context.Context, method, path string, payload []byte, out any) error {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := c.newRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.statusError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJSONBody))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSONBody)).Decode(out); err != nil {
		return core.Wrap(core.KindUpstream, err, "the Ada API at %s sent an answer that is not valid JSON", c.base)
	}
	return nil
}
