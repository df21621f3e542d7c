#!/usr/bin/env node
// The `stave-client` program (npx stave-client types …); Deno runs it as well.
import { main, type Process } from "./cli.ts";

const proc = (globalThis as unknown as { process: Process }).process;
proc.exitCode = await main(proc.argv.slice(2), proc);
