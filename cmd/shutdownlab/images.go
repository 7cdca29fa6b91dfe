package main

import (
	"context"
	"fmt"
	"io"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

func cmdImages(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newCommand("images", "Usage: shutdownlab images [--print target|loadagent|caddy|nginx|postgres]\n\nBuilds the target and load-agent images from this source tree (FROM scratch, tagged by a content hash of their inputs; an existing tag is reused). --print caddy builds (or reuses) the Caddy proxy image instead: a cold build takes minutes. --print nginx builds the stock nginx fixture (the host's Debian nginx and its echo module, with GET /slow?ms=N and /readyz) to try `check` on a server nobody here wrote. --print postgres builds the PostgreSQL service image (the host's Debian postgresql-15, for the job queue of issue 14).\n")
	print := c.fs.String("print", "", "print only this image's reference: target, loadagent, caddy, nginx or postgres")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return err
	}
	if err := noArgs("images", pos); err != nil {
		return err
	}
	if *print != "" && *print != "target" && *print != "loadagent" && *print != "caddy" && *print != "nginx" && *print != "postgres" {
		return usagef("--print: %q is not target, loadagent, caddy, nginx or postgres", scenarios.Shorten(*print))
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
	if *print == "nginx" {
		ref, version, err := images.NginxFixture(ctx, eng, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "stock nginx fixture: %s\n", version)
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
