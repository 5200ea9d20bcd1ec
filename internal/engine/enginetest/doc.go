// Package enginetest is the conformance suite every engine passes: each engine's test
// calls Run with a Harness that opens it; a server engine's tests run it on a managed
// instance (Harness.RunManaged) and as an external server (Harness.RunExternal). Tests
// that need a server call RequireServer, which fails instead of skipping when CI=true.
package enginetest
