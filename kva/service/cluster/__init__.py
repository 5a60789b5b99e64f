"""Several processes as one platform: the broker and presence records shared in Redis (which
process serves a match is nginx's hash ring, :mod:`kva.settings.routing`)."""
