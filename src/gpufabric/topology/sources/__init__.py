"""Where topology comes from: AWS, GCP, InfiniBand (ibnetdiscover) or a plain file."""
