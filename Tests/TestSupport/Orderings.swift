package import Testing

/// What a search of every ordering of a model's events found: see
/// ``searchEveryOrdering(from:depth:events:apply:name:check:atEnd:endsEveryPrefix:failureLimit:)``.
package struct OrderingSearch: Sendable {
  /// The events applied, over all orderings (orderings that share a beginning share its events).
  package var steps = 0
  /// The orderings that ran to their end: `depth` events, or none left to apply.
  package var orderings = 0
  /// What went wrong, each after the events that led there, at most the search's `failureLimit`.
  package var failures: [String] = []

  /// The first failure, if any.
  package var failure: String? { failures.first }
}

/// One event a search can apply to `Model`: its name in a failure's ordering, and what it does (returning a problem
/// it found, if any).
package typealias OrderingEvent<Model> = (name: String, apply: (inout Model) -> String?)

/// Applies every ordering of a model's events, depth first, from `initial`: the model is a value, so orderings that
/// share a beginning share the model it leads to (copied, not rebuilt).
///
/// The one explorer of the test targets' state machines: the policies', the query record's, a holder's, the
/// persistence machines', the mutation queue's. Each test gives its model and what to check:
///
/// - `events`: the events enabled in a model; none ends the ordering. `apply` applies one and returns a problem it
///   found, if any; `name` names one in a failure (only then: naming costs more than most events).
/// - `check`: after every event (a rule that holds at every step).
/// - `atEnd`: at the end of each ordering, after `depth` events or when none is left (usually "settle, then
///   compare with the reference"); with `endsEveryPrefix`, after every shorter ordering too (the model may go quiet
///   at any point).
///
/// A failure reads `after [e1, e2, …]: problem`. The search stops once `failureLimit` failures are found.
package func searchEveryOrdering<Model, Event>(
  from initial: Model,
  depth: Int = .max,
  events: (Model) -> [Event],
  apply: (inout Model, Event) -> String?,
  name: (Event) -> String = { "\($0)" },
  check: (Model) -> String? = { _ in nil },
  atEnd: (Model) -> [String] = { _ in [] },
  endsEveryPrefix: Bool = false,
  failureLimit: Int = 1
) -> OrderingSearch {
  var search = OrderingSearch()
  // The ordering being applied: pushed and popped, so a step copies no trace.
  var path: [Event] = []
  func record(_ problems: [String]) {
    guard !problems.isEmpty else { return }
    let ordering = path.map(name).joined(separator: ", ")
    search.failures += problems.map { "after [\(ordering)]: \($0)" }
  }
  func visit(_ model: Model) {
    let enabled = path.count < depth ? events(model) : []
    guard !enabled.isEmpty else {
      search.orderings += 1
      record(atEnd(model))
      return
    }
    for event in enabled {
      guard search.failures.count < failureLimit else { return }
      var next = model
      search.steps += 1
      path.append(event)
      defer { path.removeLast() }
      if let problem = apply(&next, event) ?? check(next) {
        search.orderings += 1
        record([problem])
        continue
      }
      visit(next)
    }
    if endsEveryPrefix && search.failures.count < failureLimit { record(atEnd(model)) }
  }
  visit(initial)
  if search.failures.count > failureLimit { search.failures.removeLast(search.failures.count - failureLimit) }
  return search
}

/// Applies every ordering of events given with their names and effects (see ``OrderingEvent``), as
/// ``searchEveryOrdering(from:depth:events:apply:name:check:atEnd:endsEveryPrefix:failureLimit:)`` does.
package func searchEveryOrdering<Model>(
  from initial: Model,
  depth: Int = .max,
  events: (Model) -> [OrderingEvent<Model>],
  check: (Model) -> String? = { _ in nil },
  atEnd: (Model) -> [String] = { _ in [] },
  endsEveryPrefix: Bool = false,
  failureLimit: Int = 1
) -> OrderingSearch {
  searchEveryOrdering(
    from: initial, depth: depth, events: events, apply: { model, event in event.apply(&model) }, name: \.name,
    check: check, atEnd: atEnd, endsEveryPrefix: endsEveryPrefix, failureLimit: failureLimit)
}

/// Explores every ordering of a model's events up to `depth` from `initial`, calling `check` after each event, as
/// ``searchEveryOrdering(from:depth:events:apply:name:check:atEnd:endsEveryPrefix:failureLimit:)`` does; records the first
/// failure as an issue of the calling test. Returns how many events were applied, so a test can tell that the search
/// went deep enough.
@discardableResult
package func exploreEveryOrdering<Model>(
  from initial: Model,
  depth: Int,
  events: (Model) -> [OrderingEvent<Model>],
  check: (Model) -> String?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> Int {
  let search = searchEveryOrdering(from: initial, depth: depth, events: events, check: check)
  if let failure = search.failure { Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation) }
  return search.steps
}

/// A model whose events a search runs to their end: the events enabled now (none: the model ended), what one does,
/// and the first problem the model found (it keeps it).
package protocol OrderedWorld {
  associatedtype Event
  var enabled: [Event] { get }
  mutating func apply(_ event: Event)
  var failure: String? { get }
}

/// Every ordering of the events of `world` to its end, as
/// ``searchEveryOrdering(from:depth:events:apply:name:check:atEnd:endsEveryPrefix:failureLimit:)`` runs them: `end`
/// (settling the model, a last check) runs at the end of each ordering, and with `endsEveryPrefix` after every
/// shorter one too. Returns how many orderings ran and the first failure.
package func searchEveryOrdering<World: OrderedWorld>(
  of world: World,
  endsEveryPrefix: Bool = false,
  end: @escaping (inout World) -> Void
) -> (orderings: Int, failure: String?) {
  let search = searchEveryOrdering(
    from: world,
    events: \.enabled,
    apply: { next, event in
      next.apply(event)
      return next.failure
    },
    atEnd: { world in
      var ended = world
      end(&ended)
      return ended.failure.map { [$0] } ?? []
    },
    endsEveryPrefix: endsEveryPrefix)
  return (search.orderings, search.failure)
}
