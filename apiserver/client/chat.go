package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// maxEventBytes bounds one SSE event (a done event carries the used context).
const maxEventBytes = 16 << 20

// Chat posts the request to /v1/chat/stream and passes each decoded event to
// emit, like core.Service.Chat. It returns the done event's result. An error
// event, an HTTP error, or a stream that ends without done is an error; an
// error returned by emit stops the stream and is returned unchanged.
func (c *Client) Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	payload, err := json.Marshal(wire.ChatRequestOf(req))
	if err != nil {
		return core.ChatResult{}, core.Wrap(core.KindInternal, err, "encode chat request")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // closing the connection tells the API to stop generating
	hreq, err := c.newRequest(ctx, http.MethodPost, "/v1/chat/stream", bytes.NewReader(payload))
	if err != nil {
		return core.ChatResult{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	resp, err := c.do(hreq)
	if err != nil {
		return core.ChatResult{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return core.ChatResult{}, c.statusError(resp)
	}
	return c.readStream(ctx, resp.Body, emit)
}

// readStream decodes SSE: "data:" lines (joined when an event spans several),
// a blank line ending each event, and ":" comment lines (keep-alives) ignored.
func (c *Client) readStream(ctx context.Context, body io.Reader, emit func(core.Event) error) (core.ChatResult, error) {
	r := bufio.NewReaderSize(body, 64<<10)
	var data strings.Builder
	for {
		line, err := r.ReadString('\n')
		if len(line) > 0 {
			res, done, perr := c.handleLine(strings.TrimRight(line, "\r\n"), &data, emit)
			if perr != nil || done {
				return res, perr
			}
		}
		if err == nil {
			continue
		}
		if data.Len() > 0 { // a last event without its blank line
			if res, done, perr := c.dispatch(data.String(), emit); perr != nil || done {
				return res, perr
			}
		}
		if errors.Is(err, io.EOF) {
			return core.ChatResult{}, core.Errorf(core.KindUpstream, "the answer stream from the Ada API ended before it was complete")
		}
		if ctx.Err() != nil {
			return core.ChatResult{}, core.Wrap(core.KindCanceled, ctx.Err(), "request cancelled")
		}
		return core.ChatResult{}, core.Wrap(core.KindUpstream, err, "the answer stream from the Ada API broke off")
	}
}

// handleLine processes one SSE line; done reports the end of the answer.
func (c *Client) handleLine(line string, data *strings.Builder, emit func(core.Event) error) (core.ChatResult, bool, error) {
	switch {
	case line == "":
		if data.Len() == 0 {
			return core.ChatResult{}, false, nil
		}
		payload := data.String()
		data.Reset()
		return c.dispatch(payload, emit)
	case strings.HasPrefix(line, ":"):
		return core.ChatResult{}, false, nil // keep-alive comment
	case strings.HasPrefix(line, "data:"):
		if data.Len() > 0 {
			data.WriteByte('\n')
		}
		data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		if data.Len() > maxEventBytes {
			return core.ChatResult{}, false, core.Errorf(core.KindUpstream, "the Ada API sent an event over %d bytes", maxEventBytes)
		}
	}
	return core.ChatResult{}, false, nil // other fields (event:, id:, retry:) are not used
}

// dispatch decodes one event and hands it on.
func (c *Client) dispatch(payload string, emit func(core.Event) error) (core.ChatResult, bool, error) {
	ev, err := wire.DecodeEvent([]byte(payload))
	if err != nil {
		return core.ChatResult{}, false, core.Wrap(core.KindUpstream, err, "the Ada API sent an event that is not valid")
	}
	switch ev.Type {
	case core.EventError:
		msg := ev.Error
		if msg == "" {
			msg = "the Ada API reported an error"
		}
		// The server's kind, so that the bridge tells the same failure in
		// the same words whether the core runs here or behind HTTP.
		return core.ChatResult{}, false, &core.Error{Kind: ev.Kind, Message: msg}
	case core.EventDone:
		if err := emit(ev); err != nil {
			return core.ChatResult{}, false, err
		}
		return *ev.Done, true, nil
	}
	return core.ChatResult{}, false, emit(ev)
}
