import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { REDACTED, redactSecrets } from '../src/redact.ts'

describe('redactSecrets', () => {
  it.each([
    ['OpenAI key', 'use sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t now', 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t'],
    [
      'Anthropic key',
      'key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
      'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
    ],
    ['AWS key', 'aws AKIAIOSFODNN7EXAMPLE ok', 'AKIAIOSFODNN7EXAMPLE'],
    [
      'GitHub token',
      'ghp_0123456789abcdefghijABCDEFGHIJ012345 pushed',
      'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    ],
    ['bearer header', 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4', '9f8e7d6c5b4a39281706f5e4'],
    ['JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sflKxwRJSMeKKF2QT4', 'eyJhbGciOiJIUzI1NiJ9'],
    ['env assignment', 'export DATABASE_PASSWORD=hunter2!', 'hunter2!'],
    ['JSON field', '{"api_key": "abc123def456", "user": "bob"}', 'abc123def456'],
    ['YAML field', "password: 'correct horse'", 'correct horse'],
    ['URL password', 'DATABASE_URL=postgres://shop:5up3r-s3cret@db:5432/shop', '5up3r-s3cret'],
    ['private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'MIIEow'],
  ])('redacts a %s', (_kind, text, secret) => {
    const redacted = redactSecrets(text)
    expect(redacted).not.toContain(secret)
    expect(redacted).toContain(REDACTED)
  })

  it('keeps the key name and the surrounding text readable', () => {
    expect(redactSecrets('see https://bob:pw123@example.com/x')).toBe(
      `see https://bob:${REDACTED}@example.com/x`,
    )
    expect(redactSecrets('{"password": "x1", "user": "bob"}')).toBe(
      `{"password": "${REDACTED}", "user": "bob"}`,
    )
    expect(redactSecrets('run with OPENAI_API_KEY=sk-abcdefghijklmnop1234 set')).toBe(
      `run with OPENAI_API_KEY=${REDACTED} set`,
    )
  })

  it.each([
    'the task-manager-implementation-details are in docs',
    'set max_tokens: 1500 and token_count=3',
    'a basic introduction to bearer bonds',
    'the auth flow uses tokens',
    'const config = { apiKey }',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(redactSecrets(text)).toBe(text)
  })

  it('is idempotent', () => {
    const once = redactSecrets('password=abc sk-abcdefghijklmnopqrstu')
    expect(redactSecrets(once)).toBe(once)
  })

  const alnum = (minLength: number) =>
    fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
      minLength,
      maxLength: minLength + 30,
    })
  const secrets = fc.oneof(
    alnum(20).map((s) => `sk-${s}`),
    alnum(20).map((s) => `sk-ant-api03-${s}`),
    fc.stringMatching(/^[0-9A-Z]{16}$/).map((s) => `AKIA${s}`),
    alnum(36).map((s) => `ghp_${s}`),
    fc.tuple(alnum(5), alnum(5), alnum(5)).map(([a, b, c]) => `eyJ${a}.${b}.${c}`),
  )
  const prose = fc.string({ unit: fc.constantFrom(...'abc xyz.,:;()\n"\'\0'), maxLength: 300 })

  it('never lets a generated key through, whatever surrounds it', () => {
    fc.assert(
      fc.property(prose, secrets, prose, (before, secret, after) => {
        expect(redactSecrets(`${before} ${secret} ${after}`)).not.toContain(secret)
      }),
    )
  })

  it('never lets a generated password through in an assignment', () => {
    const keys = fc.constantFrom(
      'password',
      'api_key',
      'DB_PASSWORD',
      'secret',
      'access_token',
      'GITHUB_TOKEN',
    )
    const separators = fc.constantFrom('=', ': ', ' = ', '":"', "': '")
    const value = alnum(6)
    fc.assert(
      fc.property(prose, keys, separators, value, (before, key, separator, secret) => {
        expect(redactSecrets(`${before} ${key}${separator}${secret}`)).not.toContain(secret)
      }),
    )
  })
})
