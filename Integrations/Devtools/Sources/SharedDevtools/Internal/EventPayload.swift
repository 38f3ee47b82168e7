import SharedState

/// One inspection event as the page reads it: `kind` is the event's name; the other fields are present for the
/// kinds that have them.
struct EventPayload: Encodable {
  var sequence: UInt64
  var date: String
  var key: String
  var kind: String
  /// Seconds, for the ends of fetches and mutations.
  var duration: Double?
  /// `success`, `failure` or `cancelled`, for the ends of fetches and mutations.
  var outcome: String?
  /// The value a successful fetch or mutation produced, when the event carries it.
  var value: ValueSummaryPayload?
  /// A failure's description: of a fetch, a mutation, a load or a save.
  var error: String?
  /// `onSuccess`, `onError` or `onSettled`, for a mutation's callbacks.
  var callback: String?
  /// The action that forced the query, for `forced`.
  var action: String?
  /// The forced error's message, for `forced` with `forceError`.
  var message: String?

  init(_ event: InspectionEvent) {
    sequence = event.sequence
    date = JSONDate.text(event.date)
    key = event.key
    kind = event.kind.name
    switch event.kind {
    case .fetchEnded(let duration, let outcome), .mutationEnded(let duration, let outcome):
      self.duration = Self.seconds(duration)
      switch outcome {
      case .success(let summary):
        self.outcome = "success"
        value = ValueSummaryPayload(summary)
      case .failure(let description):
        self.outcome = "failure"
        error = description
      case .cancelled:
        self.outcome = "cancelled"
      }
    case .mutationCallback(let callback):
      self.callback = callback.rawValue
    case .loadFailed(let description), .saveFailed(let description):
      error = description
    case .forced(let forced):
      action = forced.name
      if case .forceError(let text) = forced { message = text }
    case .fetchStarted, .invalidated, .cancelled, .reset, .removed, .collected, .mutationStarted, .loaded, .saved,
      .restored:
      break
    }
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
