/** Which settings a process reports as taken from its environment (names only, those that differ from defaults). */
import { z } from 'zod';
import { commonEnvironment } from './common-environment';
import { changedSettings, loadEnvironment, settingsFromEnvironment } from './load-environment';

const schema = commonEnvironment
  .extend({ MODE: z.enum(['a', 'b']).default('a'), TOKEN: z.string().optional() })
  .refine((env) => env.MODE !== 'b' || env.TOKEN !== undefined, { message: 'MODE=b needs TOKEN' });

describe('settings from the environment', () => {
  it('when variables are set, then only the names of those that differ from their defaults are listed', () => {
    const source = {
      LOG_LEVEL: 'info',
      GRAPHQL_MAX_DEPTH: '4',
      MODE: 'b',
      TOKEN: 'secret-value',
      HOST: '127.0.0.1',
      OTHER: 'x',
    };
    const parsed = loadEnvironment(schema, { source, exitOnError: false });
    expect(changedSettings(schema, source, parsed).sort()).toEqual(['GRAPHQL_MAX_DEPTH', 'MODE', 'TOKEN']);
    expect(settingsFromEnvironment()).toEqual(expect.arrayContaining(['GRAPHQL_MAX_DEPTH', 'MODE', 'TOKEN']));
    expect(settingsFromEnvironment()).not.toContain('LOG_LEVEL');
    expect(JSON.stringify(settingsFromEnvironment())).not.toContain('secret-value');
  });

  it('when a value only spells the default differently, then it is not listed', () => {
    const source = { ACCESS_TOKEN_TTL: '1800.0', NODE_ENV: 'development' };
    expect(changedSettings(schema, source, loadEnvironment(schema, { source, exitOnError: false }))).toEqual(
      [],
    );
  });
});
