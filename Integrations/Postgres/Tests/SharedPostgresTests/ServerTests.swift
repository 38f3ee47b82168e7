import Testing

/// Every suite that talks to the server, one test at a time: the fault tests stop and restart it.
@Suite(.serialized) struct ServerTests {}
