"""Code the tests share: the CLI runner, loopback servers, copies of the survey, paths."""
