//go:build tools

// Package tools pins github.com/element-hq/dendrite so that its commands can
// be built from this separate module (see mk/dendrite.mk). Dendrite is AGPL:
// keeping it in its own nested module ensures it never enters the dependency
// graph of github.com/ada-chat/ada itself. The build tag keeps this file out
// of every normal build; it only exists so `go mod` records the requirement.
package tools

import (
	_ "github.com/element-hq/dendrite/cmd/create-account"
	_ "github.com/element-hq/dendrite/cmd/dendrite"
	_ "github.com/element-hq/dendrite/cmd/generate-config"
	_ "github.com/element-hq/dendrite/cmd/generate-keys"
)
