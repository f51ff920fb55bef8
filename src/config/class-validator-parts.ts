/**
 * The parts of class-validator that the config schema uses, each from its own file. The package's
 * entry loads every validator it has, among them libphonenumber-js's metadata and all of
 * validator.js: about 3 MiB of heap and 4 MiB of resident memory that a router keeps for its
 * whole life to check one file. The types come from the package's `types/` folder (tsconfig.json
 * `paths`); the version is pinned, so these paths move only with a deliberate upgrade.
 */
export { ArrayMaxSize } from 'class-validator/cjs/decorator/array/ArrayMaxSize';
export { ArrayNotEmpty } from 'class-validator/cjs/decorator/array/ArrayNotEmpty';
export { IsIn } from 'class-validator/cjs/decorator/common/IsIn';
export { IsOptional } from 'class-validator/cjs/decorator/common/IsOptional';
export { ValidateIf } from 'class-validator/cjs/decorator/common/ValidateIf';
export { ValidateNested } from 'class-validator/cjs/decorator/common/ValidateNested';
export { Max } from 'class-validator/cjs/decorator/number/Max';
export { Min } from 'class-validator/cjs/decorator/number/Min';
export { IsUrl } from 'class-validator/cjs/decorator/string/IsUrl';
export { Matches } from 'class-validator/cjs/decorator/string/Matches';
export { MaxLength } from 'class-validator/cjs/decorator/string/MaxLength';
export { MinLength } from 'class-validator/cjs/decorator/string/MinLength';
export { IsArray } from 'class-validator/cjs/decorator/typechecker/IsArray';
export { IsBoolean } from 'class-validator/cjs/decorator/typechecker/IsBoolean';
export { IsInt } from 'class-validator/cjs/decorator/typechecker/IsInt';
export { IsNumber } from 'class-validator/cjs/decorator/typechecker/IsNumber';
export { IsObject } from 'class-validator/cjs/decorator/typechecker/IsObject';
export { IsString } from 'class-validator/cjs/decorator/typechecker/IsString';
export { Validator } from 'class-validator/cjs/validation/Validator';
export type { ValidationError } from 'class-validator/cjs/validation/ValidationError';
