import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Org, OrgContext } from '../auth/org-context';
import { ApiOrgOperation } from '../common/api-docs.decorators';
import { ProductSearchDto, ProductSearchResponseDto } from './dto/product.dto';
import { ThrottleCategory } from '../throttling/throttle-category.decorator';
import { ProductsService } from './products.service';

@ApiTags('products')
@Controller('api/v1/org/cores')
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post(':id/products')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Search products for a core',
    description:
      'Matches a ready core against the fashion and apparel catalogue and returns at most 10 products, ' +
      'best match first (no paging), never one its feed marks `out_of_stock`. The body is optional; ' +
      '`{}` searches on the taste profile alone. ' +
      'A core whose `coreStatus` is not `ready` gives 409: poll `GET /cores/{id}` and retry.',
  })
  @ApiParam({ name: 'id', description: 'Core id.' })
  @ApiBody({ type: ProductSearchDto, required: false })
  @ApiOkResponse({ type: ProductSearchResponseDto, description: 'The best matching products.' })
  @ApiOrgOperation(400, 404, 409, 413, 415)
  @ThrottleCategory('search')
  searchProducts(
    @Org() ctx: OrgContext,
    @Param('id') id: string,
    @Body() dto: ProductSearchDto,
  ): Promise<ProductSearchResponseDto> {
    return this.products.searchForCore(ctx, id, dto);
  }
}
