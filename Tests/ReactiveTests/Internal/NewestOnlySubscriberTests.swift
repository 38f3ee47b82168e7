import Testing

@testable import Reactive

/// A subscriber that keeps only the newest value reads it from the box by version; every ordering of changes, takes,
/// new subscriptions and `finish()` must give what a buffer of one value would.
@Suite struct NewestOnlySubscriberTests {
  enum Event: CaseIterable {
    case change, takeFirst, takeSecond, subscribeSecond, finish
  }

  /// What a subscriber with a buffer of one value holds.
  struct Model {
    var pending: Int?
    var hasEnded = false
  }

  @Test func everyOrderingOfChangesTakesSubscriptionsAndFinishUpToSixEvents() {
    var sequences: [[Event]] = [[]]
    var checked = 0
    for _ in 0..<6 {
      sequences = sequences.flatMap { sequence in Event.allCases.map { sequence + [$0] } }
      for sequence in sequences {
        check(sequence)
        checked += 1
      }
    }
    #expect(checked == 5 + 25 + 125 + 625 + 3_125 + 15_625)
  }

  private func check(_ events: [Event]) {
    var state = BoxState(value: 0)
    var handles = [state.subscribe(limit: 1)]
    var models = [Model(pending: 0)]
    var isFinished = false
    for (index, event) in events.enumerated() {
      let step = "after \(events[...index])"
      switch event {
      case .change:
        state.value += 1
        state.version &+= 1
        let delivery = state.didChange()
        #expect(delivery.waiters.isEmpty && delivery.released.isEmpty, "a change had work for nobody waiting \(step)")
        if !isFinished {
          for subscriber in models.indices where !models[subscriber].hasEnded {
            models[subscriber].pending = state.value
          }
        }
      case .takeFirst, .takeSecond:
        let subscriber = event == .takeFirst ? 0 : 1
        guard subscriber < handles.count else { continue }
        let taken = state.next(handles[subscriber])
        switch (taken, models[subscriber]) {
        case (.value(let value), let model) where !model.hasEnded && model.pending != nil:
          #expect(value == model.pending, "took \(value) instead of \(model.pending!) \(step)")
          models[subscriber].pending = nil
        case (.wait, let model) where !model.hasEnded && model.pending == nil && !isFinished:
          break
        case (.end, let model) where model.hasEnded || (model.pending == nil && isFinished):
          models[subscriber].hasEnded = true
        default:
          Issue.record("took \(taken) while the model held \(models[subscriber]), finished: \(isFinished) \(step)")
          return
        }
      case .subscribeSecond:
        guard handles.count == 1 else { continue }
        handles.append(state.subscribe(limit: 1))
        models.append(Model(pending: state.value))
      case .finish:
        #expect(state.finish().isEmpty, "nobody waited \(step)")
        isFinished = true
      }
      #expect(state.subscriberCount == models.filter { !$0.hasEnded }.count, "subscribers \(step)")
    }
  }
}
