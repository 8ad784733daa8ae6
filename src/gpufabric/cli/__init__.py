"""The `gpufabric` command line."""
