// Jest runs the ESM tests as they are (no transform); see `make test-js`.
export default {
  testMatch: ['<rootDir>/tests/**/*.test.js', '<rootDir>/tests/**/*.test.mjs'],
  transform: {},
  testEnvironment: 'node',
  testTimeout: 60000,
};
