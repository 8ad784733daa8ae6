"""Where topology comes from besides a cloud's own source (gpufabric.clouds.<cloud>.topology):
the InfiniBand fabric itself (ibnetdiscover) or a plain file."""
