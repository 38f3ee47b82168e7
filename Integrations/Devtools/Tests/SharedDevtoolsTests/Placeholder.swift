import Testing
import HummingbirdTesting
@testable import SharedDevtools
