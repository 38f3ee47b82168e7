import Foundation
import SharedState

/// A snapshot as the page and the JSON endpoint read it: every key, with absent fields for what a key lacks.
struct SnapshotPayload: Encodable {
  var takenAt: String
  var keys: [KeyPayload]

  init(_ snapshot: SharedSnapshot) {
    takenAt = JSONDate.text(snapshot.takenAt)
    keys = snapshot.keys.map(KeyPayload.init)
  }
}

struct KeyPayload: Encodable {
  var id: String
  var description: String
  var kind: String
  var valueType: String
  var value: ValueSummaryPayload
  var version: UInt64
  var holders: Int
  var iterations: Int
  var observers: Int
  /// The operation's status, absent for a key without one.
  var status: String?
  var operation: OperationPayload?
  var query: QueryPayload?
  var store: StorePayload?
  /// The actions the page may ask for: every action for a query, none otherwise.
  var actions: [String]
  /// A mutation's recent runs, oldest first; absent for a key whose value is not a mutation's state.
  var mutationRuns: [MutationRunPayload]?

  init(_ key: InspectedKey) {
    id = key.id
    description = key.name
    kind = key.kind.rawValue
    valueType = key.valueType
    value = ValueSummaryPayload(key.value)
    version = key.version
    holders = key.holders
    iterations = key.iterations
    observers = key.observers
    status = key.operation?.status.rawValue
    operation = key.operation.map(OperationPayload.init)
    query = key.query.map(QueryPayload.init)
    store = key.store.map(StorePayload.init)
    actions = key.queryKey == nil ? [] : ActionRequest.actionNames
    mutationRuns = key.mutationRuns.map { $0.map(MutationRunPayload.init) }
  }
}

/// One run of a mutation: its arguments, status, result or error, and when it started and ended.
struct MutationRunPayload: Encodable {
  var id: Int
  var arguments: ValueSummaryPayload
  var status: String
  var result: ValueSummaryPayload?
  var error: String?
  var startedAt: String
  var endedAt: String?
  /// Seconds from the start to the end, for a run that ended.
  var duration: Double?
  /// The meta the run was started with, each value as text; empty when it had none.
  var meta: [String: String]

  init(_ run: InspectedMutationRun) {
    id = run.id
    arguments = ValueSummaryPayload(run.arguments)
    status = run.status.rawValue
    result = run.result.map(ValueSummaryPayload.init)
    error = run.error
    startedAt = JSONDate.text(run.startedAt)
    endedAt = run.endedAt.map(JSONDate.text)
    duration = run.endedAt.map { max($0.timeIntervalSince(run.startedAt), 0) }
    meta = run.meta
  }
}

struct ValueSummaryPayload: Encodable {
  var text: String
  var isJSON: Bool
  var isTruncated: Bool

  init(_ summary: ValueSummary) {
    text = summary.text
    isJSON = summary.isJSON
    isTruncated = summary.isTruncated
  }
}

struct OperationPayload: Encodable {
  var status: String
  var isFetching: Bool
  var isPaused: Bool
  var attempt: Int
  var failureCount: Int
  var error: String?
  /// The state's last change through an operation (a fetch starting, retrying, ending): "last change" on the page.
  var updatedAt: String?
  /// When the value shown was obtained: "data from" on the page.
  var dataUpdatedAt: String?
  /// When the last failure for good happened: "last error" on the page.
  var errorUpdatedAt: String?

  init(_ operation: InspectedOperation) {
    status = operation.status.rawValue
    isFetching = operation.isFetching
    isPaused = operation.isPaused
    attempt = operation.attempt
    failureCount = operation.failureCount
    error = operation.error
    updatedAt = operation.updatedAt.map(JSONDate.text)
    dataUpdatedAt = operation.dataUpdatedAt.map(JSONDate.text)
    errorUpdatedAt = operation.errorUpdatedAt.map(JSONDate.text)
  }
}

struct QueryPayload: Encodable {
  var isStale: Bool
  var staleAt: String?
  var isHeld: Bool
  var isEnabled: Bool
  var collectedAt: String?
  var isForced: Bool
  /// The query's meta, each value as text; empty when it has none.
  var meta: [String: String]

  init(_ query: InspectedQuery) {
    isStale = query.isStale
    staleAt = query.staleAt.map(JSONDate.text)
    isHeld = query.isHeld
    isEnabled = query.isEnabled
    collectedAt = query.collectedAt.map(JSONDate.text)
    isForced = query.isForced
    meta = query.meta
  }
}

struct StorePayload: Encodable {
  var isLoading: Bool
  var loadError: String?
  var saveError: String?

  init(_ store: InspectedStore) {
    isLoading = store.isLoading
    loadError = store.loadError
    saveError = store.saveError
  }
}

/// Dates as ISO 8601 text with milliseconds, which JavaScript's `Date` reads.
enum JSONDate {
  static func text(_ date: Date) -> String {
    Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
  }
}

/// The encoder of every JSON answer: keys sorted, so that equal snapshots are equal bytes.
enum DevtoolsJSON {
  static func encode(_ value: some Encodable) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      return try encoder.encode(value)
    } catch {
      // Strings, numbers and booleans only: encoding cannot fail.
      preconditionFailure("Devtools JSON could not be encoded: \(error)")
    }
  }
}
