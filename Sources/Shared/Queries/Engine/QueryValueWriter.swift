/// The two writes of a fetch that a holder starts, made where the holder is made (code specialized for the value's
/// type there) and carried by the fetch: showing the fetch starting, and writing the value it returned.
///
/// The query's record and its fetch are generic code the library runs for every value type; a write into the value
/// from there looks up the value's type metadata at each step (most of the cost of a write). A holder's
/// initializer is inlined into the app, so the writes it makes are plain code for the app's type. Work started any
/// other way (a caller awaiting a value, a prefetch, an invalidation) writes through the generic code.
@usableFromInline
struct QueryValueWriter<State: OperationTrackable>: Sendable {
  /// Shows a fetch starting (see ``QueryStore/markPending(_:)``); returns the status to restore if it is cancelled.
  @usableFromInline let markPending: @Sendable (Shared<State>) -> OperationStatus
  /// Writes a fetched value (see ``QueryFetchExecutor/showSuccess(_:in:sharing:keepFetching:closing:of:)``).
  @usableFromInline let showSuccess:
    @Sendable (Shared<State>, State.Success, _ sharing: Bool, _ keepFetching: Bool, YieldGate?, QueryWork) -> Void

  /// The writes, specialized where this is called.
  @inlinable
  init() {
    markPending = { shared in QueryFetchExecutor.markPending(shared) }
    showSuccess = { shared, value, sharing, keepFetching, gate, work in
      QueryFetchExecutor.showSuccess(
        value, in: shared, sharing: sharing, keepFetching: keepFetching, closing: gate, of: work)
    }
  }
}
