package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ada-chat/ada/core"
)

// maxResultChars bounds what one tool call adds to the prompt.
const maxResultChars = 16000

// maxDescriptionChars bounds a tool's description in the prompt.
const maxDescriptionChars = 1000

// toolNameRE is what the marker syntax accepts in a specialist name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// tool is one MCP tool as a core.Specialist named <server>.<tool>.
type tool struct {
	c    *conn
	name string // the tool's own name on its server
	info core.SpecialistInfo
}

var _ core.Specialist = (*tool)(nil)

// Tag marks every MCP tool in /v1/specialists; ServerTag(name) names its
// server.
const Tag = core.TagMCP

// ServerTag is the tag naming a tool's server, "mcp-server:<name>".
func ServerTag(server string) string { return "mcp-server:" + server }

// specialists turns the listed tools into specialists, leaving out (with a
// warning) a tool whose name or input schema Ada cannot use.
func (c *conn) specialists(tools []*mcp.Tool) []core.Specialist {
	var out []core.Specialist
	for _, t := range tools {
		if !toolNameRE.MatchString(t.Name) {
			c.log.Warn("MCP tool left out: its name may only hold letters, digits, '_', '-' and '.'", "tool", t.Name)
			continue
		}
		schema, err := inputSchema(t)
		if err != nil {
			c.log.Warn("MCP tool left out: its input schema does not compile", "tool", t.Name, "error", err)
			continue
		}
		out = append(out, &tool{c: c, name: t.Name, info: c.info(t, schema)})
	}
	return out
}

func (c *conn) info(t *mcp.Tool, schema json.RawMessage) core.SpecialistInfo {
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = strings.TrimSpace(t.Title)
	}
	if r := []rune(desc); len(r) > maxDescriptionChars {
		desc = string(r[:maxDescriptionChars]) + "…"
	}
	desc = strings.TrimSpace(fmt.Sprintf("%s (tool %q of the MCP server %s)", desc, t.Name, c.spec.Name))
	out := json.RawMessage(`{}`)
	if t.OutputSchema != nil {
		if b, err := json.Marshal(t.OutputSchema); err == nil {
			out = b
		}
	}
	return core.SpecialistInfo{
		Name: c.spec.Name + "." + t.Name, Description: desc, Icon: "🔌", Version: "mcp",
		Priority: core.PriorityMedium, Enabled: true, Tags: []string{Tag, ServerTag(c.spec.Name)},
		InputSchema: schema, OutputSchema: out,
	}
}

// inputSchema is the tool's input schema as JSON, checked to compile as
// core's registry will compile it: one bad tool must not stop Ada.
func inputSchema(t *mcp.Tool) (json.RawMessage, error) {
	b, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil || string(b) == "null" {
		b = []byte(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	if err := comp.AddResource("mcp://tool/input.json", doc); err != nil {
		return nil, err
	}
	if _, err := comp.Compile("mcp://tool/input.json"); err != nil {
		return nil, err
	}
	return b, nil
}

// Info describes the tool for the catalogue and the prompt.
func (t *tool) Info() core.SpecialistInfo {
	info := t.info
	info.Tags = append([]string(nil), t.info.Tags...)
	info.InputSchema = append(json.RawMessage(nil), t.info.InputSchema...)
	info.OutputSchema = append(json.RawMessage(nil), t.info.OutputSchema...)
	return info
}

// Run calls the tool within MCP_TOOL_TIMEOUT_SECONDS. An error result, a
// timeout or a server that is down is an error the model may explain.
func (t *tool) Run(ctx context.Context, call core.SpecialistCall) (out string, err error) {
	start := time.Now()
	defer func() {
		if fn := t.c.observe.Load(); fn != nil {
			(*fn)(t.info.Name, err, time.Since(start))
		}
	}()
	sess := t.c.session()
	if sess == nil {
		return "", core.Errorf(core.KindUnavailable, "%s is not available right now: its MCP server %s is down or restarting", t.info.Name, t.c.spec.Name)
	}
	var args map[string]any
	if len(bytes.TrimSpace(call.Args)) > 0 {
		if err := json.Unmarshal(call.Args, &args); err != nil {
			return "", core.Errorf(core.KindInvalid, "the arguments for %s must be a JSON object", t.info.Name)
		}
	}
	timeout := t.c.opts.Timeout
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &mcp.CallToolParams{Name: t.name, Arguments: args})
	if err != nil {
		var we *jsonrpc.Error
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err() // the chat's own deadline or cancellation: core says so
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return "", core.Errorf(core.KindUpstream, "%s did not answer within %s (MCP_TOOL_TIMEOUT_SECONDS)", t.info.Name, timeout)
		case errors.As(err, &we) && !connectionFailed(we.Code):
			return "", core.Errorf(core.KindUpstream, "%s refused the call: %s", t.info.Name, clip(we.Message, 500))
		}
		err = t.c.redact(err)
		t.c.log.Warn("MCP tool call failed", "tool", t.name, "error", err, "ms", time.Since(start).Milliseconds())
		// The connection failed, not the tool: ending the session makes the
		// supervisor connect again (a url server that restarted lost it; a
		// stdio server that exited ends it anyway).
		sess.Close()
		return "", core.Wrap(core.KindUpstream, err, "%s failed: its MCP server %s did not answer", t.info.Name, t.c.spec.Name)
	}
	text := resultText(res)
	if res.IsError {
		return "", core.Errorf(core.KindUpstream, "%s reported an error: %s", t.info.Name, clip(text, 2000))
	}
	return clip(text, maxResultChars), nil
}

// connectionFailed tells the SDK's codes for a call the connection could
// not carry (rejected by the transport, either side closing) from a
// server's answer.
func connectionFailed(code int64) bool {
	return code == -32005 || code == -32004 || code == -32003
}

// resultText renders every part of a result as text for the prompt: text
// as is, images, audio and binary resources described (the model reads
// text only), structured content as JSON when no text carries it.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			hasText = hasText || strings.TrimSpace(c.Text) != ""
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image (%s, %d bytes) that is not shown to you]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[an audio clip (%s, %d bytes) that is not played to you]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %q: %s %s]", c.Name, c.URI, c.Description))
		case *mcp.EmbeddedResource:
			parts = append(parts, embeddedText(c.Resource))
			hasText = hasText || (c.Resource != nil && c.Resource.Text != "")
		default:
			parts = append(parts, "[a result part Ada cannot show]")
		}
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		return "(the tool returned nothing)"
	}
	return strings.Join(parts, "\n")
}

func embeddedText(r *mcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[an empty resource]"
	case r.Text != "":
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	default:
		return fmt.Sprintf("[resource %s (%s, %d bytes) that is not shown to you]", r.URI, r.MIMEType, len(r.Blob))
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "… (cut)"
	}
	return s
}
