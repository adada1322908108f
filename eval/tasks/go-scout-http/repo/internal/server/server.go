// Package server is the notes HTTP API.
package server

import (
	"net/http"
	"sync"
)

// Server holds the notes.
type Server struct {
	mu    sync.Mutex
	notes []string
}

// New returns an empty server.
func New() *Server { return &Server{} }

// Routes registers every endpoint on a new mux.
func (s *Server) Routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /notes", s.handleList)
	mux.HandleFunc("POST /notes", s.handleAdd)
	return mux
}
