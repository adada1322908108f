package server

import (
	"encoding/json"
	"io"
	"net/http"
)

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "ok\n")
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.notes)
}

func (s *Server) handleAdd(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	if err != nil || len(body) == 0 {
		http.Error(w, "empty note", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.notes = append(s.notes, string(body))
	s.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}
