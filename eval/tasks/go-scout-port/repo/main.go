// Command notes serves a small notes API.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"

	"example.com/notes/config"
)

func main() {
	c := config.Default()
	flag.IntVar(&c.Port, "port", c.Port, "TCP port to listen on")
	flag.Parse()
	http.HandleFunc("/notes", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "[]") })
	log.Fatal(http.ListenAndServe(fmt.Sprintf(":%d", c.Port), nil))
}
