import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Test } from '@nestjs/testing';
import { testConfig } from '../../test/support/router';
import { ANONYMOUS } from '../common/principal';
import { ConfigModule } from '../config/config.module';
import type { RouterConfig } from '../config/config.types';
import { AccessModule } from './access.module';
import { AccessService } from './access.service';

async function serviceFor(overrides: Partial<RouterConfig>): Promise<AccessService> {
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(testConfig([], overrides)), AccessModule] }).compile();
  return moduleRef.get(AccessService);
}

test('a config built in code (no auth, no rules) allows everything, as before security existed', async () => {
  const access = await serviceFor({});
  assert.equal(access.mayCall(ANONYMOUS, 'files', 'read_file'), true);
});

test('the rules and the auth mode come from their config slices', async () => {
  const access = await serviceFor({
    auth: { mode: 'apiKeys', allowInsecure: false, apiKeys: [] },
    access: { rules: [{ groups: ['readers'], allow: ['files:read_*'] }] },
  });
  const alice = { id: 'alice', groups: ['readers'] };
  assert.equal(access.mayCallTool(alice, { backend: 'files', name: 'read_file' }), true);
  assert.equal(access.mayCallTool(alice, { backend: 'files', name: 'write_file' }), false);
  assert.equal(access.mayCall({ id: 'carol', groups: [] }, 'files', 'read_file'), false);
});
