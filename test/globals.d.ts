// Types for the Jest-style globals provided by test/support/jest-compat.ts.
/// <reference types="jest" />
export {};
