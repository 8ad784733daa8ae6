"""`python -m gpufabric.cli`: the same as the `gpufabric` command."""

from gpufabric.cli.main import main

main()
