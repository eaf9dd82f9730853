"""The one HTTP stack: every request the toolkit makes to the network goes through here.

* :mod:`.addresses`: which hosts may be asked (private, loopback and link-local addresses are
  refused unless ``SURVEY_NET_ALLOW`` names them) and which URLs a record must not hold;
* :mod:`.body`: an answer's body read with a cap on its size and on its decompressed size;
* :mod:`.client`: :class:`~survey_tools.net.client.Limits` (timeouts, deadlines, caps, retries),
  one retry policy (tenacity, honouring ``Retry-After``) and the clients built on httpx: an
  async one (``survey links``) and a synchronous one for the metadata services.

The library raises :class:`~survey_tools.net.client.NetError` kinds with one sentence for the
user; the services' modules (``scholarly/``, ``curate/links``) turn them into their own messages.
"""
