import Testing

@testable import SharedState

extension StoreSimulationTests {
  /// Runs the page programs of the seeds; returns the first failure as lines a person reads, its program cut after
  /// the failing step and shrunk when `shrinks`.
  static func firstPagesFailure(shrinks: Bool = true) async -> String? {
    for seed in seeds {
      let steps = PagesSimulationStep.program(seed: seed)
      guard let failure = await PagesSimulationRunner.run(steps) else { continue }
      var kept = Array(steps.prefix(failure.step))
      var keptFailure = failure
      if shrinks {
        // Drop single steps while the program still breaks the same invariant.
        var index = kept.count - 1
        while index >= 0 {
          var candidate = kept
          candidate.remove(at: index)
          if let again = await PagesSimulationRunner.run(candidate, settleGuard: .milliseconds(300)),
            again.kind == keptFailure.kind
          {
            kept = Array(candidate.prefix(again.step))
            keptFailure = again
            index = min(index, kept.count)
          }
          index -= 1
        }
      }
      let listing = kept.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
      return """
        seed \(seed) fails \(failure); \(shrinks ? "shrunk to \(kept.count) steps" : "unshrunk"), failing \(keptFailure):
        \(listing)
        then:
        \(keptFailure.detail)
        """
    }
    return nil
  }

  /// A paginated feed with several holders: the next page, refetches of all pages, invalidation, optimistic
  /// mutations inserting into page 0 while pages arrive, and in-place edits of a page item while a change is
  /// pending (kept when the next page comes).
  @Test func paginatedQueries() async {
    let failure = await Self.firstPagesFailure()
    #expect(failure == nil, "\(failure ?? "")")
  }
}
