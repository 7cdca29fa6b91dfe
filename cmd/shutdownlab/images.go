package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// imagesUsage is the images subcommand's help text.
const imagesUsage = `Usage: shutdownlab images [--print NAME]

Builds the target and load-agent images from this source tree (FROM scratch, tagged by a content hash of their inputs; an existing tag is reused). --print NAME builds (or reuses) one image and prints only its reference:

  target, loadagent   the project's Go images
  caddy               the Caddy proxy image (a cold build takes minutes)
  postgres            the PostgreSQL service image of the job queue (the host's Debian postgresql-15)
  fixture-NAME        a stock-server fixture, to try ` + "`check`" + ` on a server nobody here wrote:
                      %s
                      (nginx, apache, haproxy and lighttpd also without the fixture- prefix)

Every fixture serves GET /readyz, /livez and /slow (200 "ok" after 300 ms) on port 8080 and sets no STOPSIGNAL; its documented graceful and fast stop signals are printed on stderr.
`

// stockPrintName maps a --print value to a stock fixture's name ("" if it
// names none): fixture-NAME for every fixture, and the bare name for those
// whose name is no other image's (not caddy).
func stockPrintName(v string) string {
	var names []string
	for _, s := range images.StockServers() {
		names = append(names, s.Name)
	}
	if n, ok := strings.CutPrefix(v, "fixture-"); ok && slices.Contains(names, n) {
		return n
	}
	if v != "caddy" && slices.Contains(names, v) {
		return v
	}
	return ""
}

func cmdImages(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var fixtures []string
	for _, s := range images.StockServers() {
		fixtures = append(fixtures, "fixture-"+s.Name)
	}
	c := newCommand("images", fmt.Sprintf(imagesUsage, strings.Join(fixtures, ", ")))
	print := c.fs.String("print", "", "print only this image's reference: target, loadagent, caddy, postgres or fixture-NAME")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs("images", pos); err != nil {
		return err
	}
	stock := stockPrintName(*print)
	if *print != "" && stock == "" && !slices.Contains([]string{"target", "loadagent", "caddy", "postgres"}, *print) {
		return usagef("--print: %q is not target, loadagent, caddy, postgres or one of %s", scenarios.Shorten(*print), strings.Join(fixtures, ", "))
	}
	eng, err := docker.New(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	log := stderr
	if *print == "" {
		log = stdout
	}
	if stock != "" {
		ref, s, err := images.StockFixture(ctx, eng, stock, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "documented: graceful %s, fast %s, docker stop (SIGTERM): %s (%s)\n",
			s.Stop.Graceful, s.Stop.Fast, s.DockerStop().Action, s.Stop.DocURL)
		fmt.Fprintln(stdout, ref)
		return nil
	}
	if *print == "postgres" {
		ref, version, err := images.PostgresService(ctx, eng, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "postgres service: %s\n", version)
		fmt.Fprintln(stdout, ref)
		return nil
	}
	if *print == "caddy" {
		spec, err := images.CaddySpec("")
		if err != nil {
			return err
		}
		spec.Log = log
		ref, _, err := images.Build(ctx, eng, spec)
		if err != nil {
			return fmt.Errorf("caddy image: %w", err)
		}
		fmt.Fprintln(stdout, ref)
		return nil
	}
	target, agent, err := images.BuildProject(ctx, eng, "", log)
	if err != nil {
		return err
	}
	switch *print {
	case "target":
		fmt.Fprintln(stdout, target)
	case "loadagent":
		fmt.Fprintln(stdout, agent)
	}
	return nil
}
