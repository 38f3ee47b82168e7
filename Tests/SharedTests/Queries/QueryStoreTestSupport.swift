import Foundation
import Synchronization
import TestSupport
import Testing

@testable import SharedState

/// Options for tests: a manual clock, a one-minute gcTime, no retries.
func queryStoreOptions(_ clock: ManualClock, staleTime: Duration = .seconds(600)) -> QueryOptions {
  QueryOptions(staleTime: staleTime, gcTime: .seconds(60), operation: .retry(.none).clock(clock))
}
