package wire

import (
	"net/http"

	"github.com/ada-chat/ada/core"
)

// kinds is the one table of error kinds on the wire: the HTTP status of a
// {"detail"} answer (an SSE error event carries the kind's name,
// core.ErrorKind.String). When a status stands for several kinds (500), the
// first row is the kind a client reads back.
var kinds = []struct {
	kind   core.ErrorKind
	status int
}{
	{core.KindInvalid, http.StatusBadRequest},
	{core.KindNotFound, http.StatusNotFound},
	{core.KindUnavailable, http.StatusServiceUnavailable},
	{core.KindUpstream, http.StatusInternalServerError},
	{core.KindTooLarge, http.StatusRequestEntityTooLarge},
	{core.KindUnauthorized, http.StatusUnauthorized},
	{core.KindCanceled, http.StatusGatewayTimeout},
	{core.KindInternal, http.StatusInternalServerError},
}

// Status is the HTTP status of an error of kind.
func Status(kind core.ErrorKind) int {
	for _, k := range kinds {
		if k.kind == kind {
			return k.status
		}
	}
	return http.StatusInternalServerError
}

// KindOfStatus is the kind a client reads from an HTTP status: a 403 is
// unauthorized too, and anything else that is not a 2xx is upstream.
func KindOfStatus(status int) core.ErrorKind {
	if status == http.StatusForbidden {
		return core.KindUnauthorized
	}
	for _, k := range kinds {
		if k.status == status {
			return k.kind
		}
	}
	return core.KindUpstream
}

// kindName is the name of kind in an SSE error event.
func kindName(kind core.ErrorKind) string {
	for _, k := range kinds {
		if k.kind == kind {
			return k.kind.String()
		}
	}
	return "internal"
}

// kindNamed reads a kind name back; an unknown or missing name (an older
// server) is upstream: the server reported a failure it did not classify.
func kindNamed(name string) core.ErrorKind {
	for _, k := range kinds {
		if k.kind.String() == name {
			return k.kind
		}
	}
	return core.KindUpstream
}
