// The scripted demo agent's entry point (see src/sandbox/demo-agent/).
process.stderr.write("demo agent: not built yet\n");
process.exitCode = 1;
