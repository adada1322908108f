//go:build legacy

package server

import "net/http"

// legacyRoutes was the routing table before Go 1.22 method patterns. It is only
// built with -tags legacy and is not used by cmd/notesd.
func (s *Server) legacyRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", s.handleHealthz)
	return mux
}

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("healthy"))
}
